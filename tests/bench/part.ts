/**
 * Runs some parts of `deno task bench` by name (`deno run -A tests/bench/part.ts messages
 * anonymous postgres`), for a quick figure after a change; `deno task bench` runs them all.
 */
import { benchAnonymous } from "./anonymous.ts";
import { benchCapture } from "./capture.ts";
import { benchReceiptCorpus } from "./receipt_corpus.ts";
import { benchReceiptReading } from "./receipt_reading.ts";
import { benchDecisions } from "./decisions.ts";
import { benchMessages } from "./messages.ts";
import { benchPostgres } from "./postgres.ts";
import { benchPurchasePush } from "./purchase_push.ts";
import { benchPwalists } from "./pwalists.ts";

const line = (name: string, value: string, budget = "") =>
  console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`);
const parts: Record<string, (l: typeof line) => Promise<void>> = {
  messages: benchMessages,
  anonymous: benchAnonymous,
  postgres: benchPostgres,
  capture: benchCapture,
  receipts: async (l) => {
    await benchReceiptCorpus(l);
    await benchReceiptReading(l);
  },
  purchase_push: benchPurchasePush,
  pwalists: benchPwalists,
  decisions: benchDecisions,
};
for (const name of Deno.args.length ? Deno.args : Object.keys(parts)) {
  const run = parts[name];
  if (!run) throw new Error(`no bench part ${name}: ${Object.keys(parts).join(", ")}`);
  await run(line);
}
