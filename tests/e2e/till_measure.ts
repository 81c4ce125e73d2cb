/**
 * Taps and seconds to attach a receipt after a purchase, from a locked phone (not a test: a
 * measurement, printed). The preact build at 360×640 on a fresh demo server; each run starts
 * with a new purchase and the app locked (a new page load), and ends when the server holds the
 * receipt. The camera is the test's file (its shutter counted as one tap, no time):
 *
 *   ./node_modules/deno/deno run -A build.ts
 *   CHROME_PATH=/usr/bin/chromium ./node_modules/deno/deno run -A tests/e2e/till_measure.ts
 *
 * - "app icon, PIN": open the app, PIN, Transactions, the purchase, Take photo, shutter, Send.
 * - "push, PIN": the purchase notification's "Add receipt", PIN, Take photo (focused), shutter,
 *   Send receipt.
 * - "push, passkey": the same with the passkey (Chromium's virtual authenticator; the prompt
 *   opens by itself and the fingerprint is one touch).
 */
import type { Page } from "puppeteer-core";
import { activate, click, type Env, start, tapDigits, waitText } from "./harness.ts";
import { closeAll, inTopPanel, mainTab, waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, purchase } from "./transactions_setup.ts";
import { makePng } from "../fixtures/files.ts";

const EMPLOYEE = "employee@demo.example";
const PIN = "135790";

async function receipts(env: Env, txOid: string): Promise<number> {
  const uid = (await env.deps.store.users.byEmail(EMPLOYEE))!.oid;
  const tx = (await env.deps.store.transactions.get(uid, txOid)).value!;
  return (await env.deps.store.documents.byTransaction(uid, tx.authorizationId))
    .filter((d) => d.documentType === "receipt").length;
}

async function until(fn: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The photo taken: "Take photo" (focused after a deep link, else tapped) and the shutter. */
async function takePhoto(p: Page, photo: string): Promise<number> {
  const input = await p.waitForSelector(".side-panel.open .capture-take input[type=file]");
  await input!.uploadFile(photo);
  await p.waitForSelector(".side-panel.open .capture-pages img[alt='Page 1']");
  await inTopPanel(p, "Send receipt");
  return 3; // Take photo, the shutter, Send receipt
}

const dir = await Deno.makeTempDir({ prefix: "qcard-till-measure-" });
const photo = `${dir}/receipt.png`;
await Deno.writeFile(photo, makePng(1200, 1600, { rgb: [236, 226, 196] }));
const env = await start("preact");
const results: { path: string; taps: number; seconds: number }[] = [];
try {
  const p = await activate(env, EMPLOYEE, PIN);
  await waitText(p, "No requests here");
  const h = await bearerOf(p, () => click(p, "Refresh"));
  const card = await cardFor(env, h);
  const run = async (path: string, n: number, body: (link: string) => Promise<number>) => {
    const b = await purchase(env, { card: card.oid, amount: "6.40", merchantName: `Cafe ${n}` });
    const link = `${env.url}/?open=transaction:${b.transactionOid}:receipt`;
    const t0 = performance.now();
    const taps = await body(link);
    await until(async () => (await receipts(env, b.transactionOid)) === 1);
    results.push({ path, taps, seconds: (performance.now() - t0) / 1000 });
  };

  await run("app icon, PIN", 1, async () => {
    await p.goto(env.url);
    await waitText(p, "Enter your PIN");
    await tapDigits(p, PIN);
    await mainTab(p, "Transactions");
    await p.locator(".tx-row ::-p-text(Cafe 1)").click();
    await waitInTopPanel(p, "Take photo");
    return 1 + PIN.length + 2 + await takePhoto(p, photo);
  });

  await run("push, PIN", 2, async (link) => {
    await p.goto(link);
    await waitText(p, "Enter your PIN");
    await tapDigits(p, PIN);
    await waitInTopPanel(p, "Cafe 2");
    return 1 + PIN.length + await takePhoto(p, photo);
  });

  // The passkey on (Options), then locked again.
  const cdp = await p.createCDPSession();
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      hasPrf: true,
    },
  });
  await closeAll(p);
  await click(p, "Open menu");
  await click(p, "Options");
  await click(p, "Unlock with fingerprint or face");
  await waitText(p, "Your PIN still unlocks QCard.");

  await run("push, passkey", 3, async (link) => {
    await p.goto(link);
    await waitInTopPanel(p, "Cafe 3");
    return 1 + 1 + await takePhoto(p, photo);
  });
} finally {
  await env.close();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
console.log("\nAttach a receipt after a purchase, from a locked phone (preact, 360×640):");
for (const r of results) {
  console.log(
    `  ${r.path.padEnd(16)} ${String(r.taps).padStart(2)} taps  ${r.seconds.toFixed(1)} s`,
  );
}
