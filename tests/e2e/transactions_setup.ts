/**
 * Server-side steps the card-transaction browser tests share: the page's own
 * bearer (read from its requests), a card for its user through the app's API (request
 * created, submitted, accepted; 3-D Secure defined with the SMS PIN; card generated), and
 * purchases through the issuer's test mode (`POST /_issuer/purchase`, loopback).
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { recordDecision } from "../../server/domain/requests.ts";
import type { Env } from "./harness.ts";
import { openRow, settled } from "./panels.ts";

const E = "/bonita/scmapi/expense";
export const DAY = 86_400_000;

/**
 * Opens the transaction whose row on the Transactions tab shows `text` (waiting for the row);
 * `settle`: then until the app has nothing in flight (panels.ts settled).
 */
export async function openTx(p: Page, text: string, opts: { settle?: boolean } = {}) {
  await openRow(p, ".transactions-tab .tx-row", text);
  if (opts.settle) await settled(p);
}

/** The page's bearer headers, read from the next API request it makes (tap Refresh). */
export async function bearerOf(page: Page, trigger: () => Promise<void>) {
  const seen = new Promise<Record<string, string>>((resolve) => {
    const on = (req: { headers(): Record<string, string> }) => {
      const auth = req.headers().authorization;
      if (auth?.startsWith("Bearer ")) {
        page.off("request", on);
        resolve({ authorization: auth });
      }
    };
    page.on("request", on);
  });
  await trigger();
  return await seen;
}

/** POST an expense call as the page's user; the parsed answer (asserted 200). */
export async function postAs(env: Env, h: Record<string, string>, path: string, body: unknown) {
  const res = await fetch(`${env.url}${E}/${path}`, {
    method: "POST",
    headers: { ...h, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/**
 * A card for the page's user on a new accepted request (3-D Secure defined first through
 * its SMS PIN): the card request's oid and id.
 */
export async function cardFor(
  env: Env,
  h: Record<string, string>,
  opts: { amount?: number; purpose?: string; phone?: string } = {},
): Promise<{ oid: string; id: string }> {
  const phone = opts.phone ?? "612345678";
  const { expenseRequest } = await postAs(env, h, "pwaexpenserequestcreate", {
    expenseRequest: {
      typeOid: "type-travel",
      amount: opts.amount ?? 500,
      purpose: opts.purpose ?? "Client visit in Lyon",
      costCenterOid: "cc-sales",
      GLOid: "gl-travel",
      projectOid: "prj-crm",
    },
  });
  await postAs(env, h, "pwasubmit", { record: expenseRequest.oid });
  const [a] = await env.deps.store.approvals.byRequest(expenseRequest.oid);
  assert.equal((await recordDecision(env.deps, a.oid, "accepted"))?.status, "accepted");
  await postAs(env, h, "pwasetexpensedosecure", {
    record: { password: "Tr4in-2027!", countryPrefix: "+33", phoneNumber: phone },
  });
  const pin = await env.latestSecurePin(`+33${phone}`);
  assert.equal((await postAs(env, h, "pwaexpensedosecurevalidatepin", { pin })).pinOk, true);
  await postAs(env, h, "pwanewqcard", { oid: expenseRequest.oid });
  return { oid: expenseRequest.oid, id: expenseRequest.id };
}

/** A purchase through the issuer's test mode, as a merchant would make it. */
export async function purchase(env: Env, body: Record<string, unknown>) {
  const res = await fetch(`${env.url}/_issuer/purchase`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ capture: true, merchantCity: "Lyon", merchantCountry: "FR", ...body }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `purchase: ${res.status} ${text}`);
  return JSON.parse(text) as {
    transactionOid: string;
    approved: boolean;
    refusedReason: string | null;
    available: number;
  };
}
