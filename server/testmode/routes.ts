import { Hono } from "hono";
import type { Context } from "hono";
import { fromMinor } from "../../client/lib/currency_units.ts";
import type { AppEnv, Deps } from "../env.ts";
import { badRequest, HttpError } from "../errors.ts";
import { statusOf } from "../domain/transaction_ingest.ts";
import { IssuerError } from "../issuer/mod.ts";
import { EventInput, parseInput, PurchaseInput, RefundInput } from "./input.ts";
import { ISSUER_CSS, page } from "./page.ts";
import { capture, purchase, refund, reverse, type TestModeResult } from "./purchases.ts";

/** The page's and the JSON API's view of the issuer: masked cards, recent transactions. */
export async function overview(deps: Deps, limit = 30) {
  const { issuer, store } = deps;
  const cards = (await issuer.listCards(100)).map((c) => ({
    oid: c.metadata.requestOid ?? null,
    requestId: c.metadata.requestId ?? null,
    token: c.token,
    last4: c.last4,
    cardNumber: `•••• •••• •••• ${c.last4}`,
    brand: c.brand,
    holder: c.cardholderName,
    status: c.status,
    currency: c.currency,
    available: fromMinor(c.amountAvailable, c.currency),
    allocated: fromMinor(c.amountAllocated, c.currency),
    blockedMccs: c.spendingControls.blockedCategories,
  }));
  const last4 = new Map(cards.map((c) => [c.token, c.last4]));
  const transactions = [];
  for (const a of await issuer.recentAuthorizations(limit)) {
    const link = (await store.transactions.byAuthorization(a.id)).value;
    transactions.push({
      authorizationId: a.id,
      transactionOid: link?.oid ?? null,
      cardLast4: last4.get(a.cardToken) ?? null,
      createdAt: new Date(a.createdAt).toISOString(),
      kind: a.kind,
      merchant: a.merchant,
      status: statusOf(a),
      issuerStatus: a.status,
      refusedReason: a.reason,
      originalAmount: fromMinor(a.merchantAmount, a.merchantCurrency),
      originalCurrency: a.merchantCurrency,
      amount: fromMinor(a.amount, a.currency),
      currency: a.currency,
      held: fromMinor(a.amountHeld, a.currency),
      captured: fromMinor(a.amountCaptured, a.currency),
      refunded: fromMinor(a.amountRefunded, a.currency),
      canCapture: a.status === "pending",
      canRefund: a.kind === "purchase" && a.merchantCaptured > a.merchantRefunded,
    });
  }
  return { cards, transactions, rates: issuer.rates() };
}
export type Overview = Awaited<ReturnType<typeof overview>>;

const isForm = (c: Context<AppEnv>) =>
  (c.req.header("content-type") ?? "").startsWith("application/x-www-form-urlencoded");

async function bodyOf(c: Context<AppEnv>): Promise<unknown> {
  if (isForm(c)) return await c.req.parseBody();
  const text = await c.req.text();
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    throw badRequest("malformed_json", "The request body is not valid JSON");
  }
}

/**
 * `/_issuer` (issue 11): the issuer's test mode, beside /_outbox — never mounted in
 * production, loopback-only (app.ts DEV_PREFIX, devOnly). GET answers the page, or with
 * `Accept: application/json` `{cards, transactions, rates}`. POST purchase, capture, reverse
 * and refund take JSON (answering a TestModeResult) or the page's forms (answering 303 back
 * to the page with the outcome). No script on the page: the CSP forbids inline script.
 */
export function issuerRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", async (c) => {
    const deps = c.var.deps;
    const view = await overview(deps);
    c.header("Cache-Control", "no-store");
    if ((c.req.header("accept") ?? "").includes("application/json")) return c.json(view);
    const result = c.req.query("result");
    const shown = result ? await deps.issuer.getAuthorization(result) : null;
    return c.html(page(view, { result: shown, error: c.req.query("error") ?? null }));
  });
  app.get("/issuer.css", (c) => {
    c.header("Cache-Control", "no-store");
    return c.body(ISSUER_CSS, 200, { "content-type": "text/css; charset=utf-8" });
  });

  const action =
    (run: (deps: Deps, body: unknown) => Promise<TestModeResult>) => async (c: Context<AppEnv>) => {
      const form = isForm(c);
      c.header("Cache-Control", "no-store");
      try {
        const out = await run(c.var.deps, await bodyOf(c));
        return form ? c.redirect(`/_issuer?result=${out.authorizationId}`, 303) : c.json(out);
      } catch (err) {
        // The page shows the refusal; the JSON API answers it through onError.
        if (!form || !(err instanceof HttpError || err instanceof IssuerError)) throw err;
        return c.redirect(`/_issuer?error=${encodeURIComponent(err.message)}`, 303);
      }
    };
  app.post("/purchase", action((d, b) => purchase(d, parseInput(PurchaseInput, b))));
  app.post("/capture", action((d, b) => capture(d, parseInput(EventInput, b))));
  app.post("/reverse", action((d, b) => reverse(d, parseInput(EventInput, b))));
  app.post("/refund", action((d, b) => refund(d, parseInput(RefundInput, b))));
  return app;
}
