/** The cards test's steps: the employee's taps, the panel's buttons, the approvers' part. */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { type Env, waitText } from "./harness.ts";
import { confirmYes, fill, named, panelsClosed, pick, settled, tap } from "./panels.ts";
import { recordDecision } from "../../server/domain/requests.ts";

export const EMPLOYEE = "employee@demo.example";
export const PHONE = { prefix: "+33", number: "612345678" };
export const PASSWORD = "Tr4in-2027!";
/** Where to write screenshots of the card face (set QCARD_SHOTS=dir to look at them). */
export const SHOTS = Deno.env.get("QCARD_SHOTS");

export async function shot(p: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  await settled(p);
  await Deno.mkdir(SHOTS, { recursive: true });
  await p.screenshot({ path: `${SHOTS}/${name}.png` as `${string}.png` });
}

export const openPanels = (p: Page) => p.$$eval(".side-panel.open", (l) => l.length);

/** The names of the buttons of the top panel. */
export const panelButtons = (p: Page) =>
  p.evaluate(() => {
    const l = document.querySelectorAll(".side-panel.open");
    const top = l[l.length - 1];
    return [...(top?.querySelectorAll(".panel-body button, .panel-footer button") ?? [])].map((b) =>
      b.getAttribute("aria-label") ?? (b as HTMLElement).innerText.trim()
    );
  });

export async function isDisabled(p: Page, name: string): Promise<boolean> {
  return await (await named(p, name)).evaluate((b) => (b as HTMLButtonElement).disabled);
}

/** Opens the list row whose text matches. */
export async function openRow(p: Page, text: string): Promise<void> {
  const before = await openPanels(p);
  await p.waitForFunction(
    (t) => [...document.querySelectorAll(".request-row")].some((e) => e.textContent?.includes(t)),
    {},
    text,
  );
  await p.evaluate((t) => {
    const row = [...document.querySelectorAll(".request-row")].find((e) =>
      e.textContent?.includes(t)
    );
    (row as HTMLElement).click();
  }, text);
  await p.waitForFunction(
    (n) => document.querySelectorAll(".side-panel.open").length > n,
    {},
    before,
  );
  await settled(p);
}

export async function createRequest(p: Page, purpose: string, amount: string, shown: string) {
  await tap(p, "New request");
  await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 1);
  await pick(p, "Type", "Travel");
  await fill(p, "Amount", amount);
  await fill(p, "Purpose", purpose);
  await tap(p, "Submit");
  await confirmYes(p, "Submit this request for approval?", "Submit");
  await waitText(p, `Request submitted: ${purpose} (${shown})`);
  await panelsClosed(p);
}

/** The approvers' part, through the workflow's entry point. */
export async function accept(env: Env, id: string): Promise<string> {
  const user = await env.deps.store.users.byEmail(EMPLOYEE);
  const r = (await env.deps.store.requests.byUser(user!.oid)).find((x) => x.id === id);
  assert.ok(r, `no request ${id}`);
  const [a] = await env.deps.store.approvals.byRequest(r.oid);
  assert.equal((await recordDecision(env.deps, a.oid, "accepted"))?.status, "accepted");
  return r.oid;
}
