/**
 * Bench (receipt reading, docs/receipts.md): the reader run on the corpus of real receipts in
 * tests/fixtures/receipts/ (truth written by looking at each; sources and licences in its
 * LICENSES.md) with the code the phone runs (server/ocr/engine.ts: the same engine, settings,
 * image size and reading of the text). Printed: the share read right — total (exact), date,
 * merchant (the read name contains the true one, case-insensitive), VAT total (receipts that
 * print VAT lines with their rates) — per language
 * and capture, the time per file (median, p95), and the count of wrong totals that would be
 * shown as "Receipt matches the payment" (goal 0). Goals: total ≥ 90 %, date ≥ 90 %,
 * merchant ≥ 75 %.
 *
 * Run alone: `deno run -A tests/bench/receipt_corpus.ts` (VERBOSE=1 prints every file).
 */
import { openReader } from "../../server/ocr/engine.ts";
import { matchPayment } from "../../client/shared/receipt_match.ts";
import { type ReceiptLanguage, vatTotal } from "../../client/shared/receipt_text.ts";

type Line = (name: string, value: string, budget?: string) => void;

export interface Truth {
  file: string;
  lang: ReceiptLanguage;
  kind: string;
  capture: string;
  total: string | null;
  currency: string | null;
  date: string | null;
  merchant: string | null;
  vat_total: string | null;
  vat: { rate: string; amount: string }[];
}

export const CORPUS = new URL("../fixtures/receipts/", import.meta.url).pathname;

const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)} %` : "—");
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

export async function benchReceiptCorpus(line: Line): Promise<void> {
  const truths: Truth[] = JSON.parse(await Deno.readTextFile(`${CORPUS}truth.json`));
  const tally = { total: [0, 0], date: [0, 0], merchant: [0, 0], vat: [0, 0] };
  const by = new Map<string, [number, number]>();
  const times: number[] = [];
  let falseMatches = 0;
  for (const lang of [...new Set(truths.map((t) => t.lang))]) {
    const reader = await openReader(lang);
    try {
      for (const t of truths.filter((x) => x.lang === lang)) {
        const r = await reader.read(await Deno.readFile(`${CORPUS}${t.file}`));
        if (!t.file.endsWith(".pdf")) times.push(r.ms);
        const ok = {
          total: t.total === null ? null : r.total === Number(t.total),
          date: t.date === null ? null : r.date === t.date,
          merchant: t.merchant === null
            ? null
            : !!r.merchant?.toLowerCase().includes(t.merchant.toLowerCase()),
          // VAT printed with its rates (a US sales tax line has none: not VAT).
          vat: t.vat_total === null || !t.vat.length
            ? null
            : vatTotal(r.vat) === Number(t.vat_total),
        };
        for (const k of ["total", "date", "merchant", "vat"] as const) {
          if (ok[k] === null) continue;
          tally[k][1]++;
          if (ok[k]) tally[k][0]++;
        }
        if (ok.total !== null) {
          const key = `${lang} ${t.capture}`;
          const [a, b] = by.get(key) ?? [0, 0];
          by.set(key, [a + (ok.total ? 1 : 0), b + 1]);
        }
        // A wrong total must never read as a match with the real payment.
        if (ok.total === false && t.total !== null) {
          const m = matchPayment(r, {
            monetaryAmount: Number(t.total),
            displayMonetaryAmount: Number(t.total),
            pricingCurrency: t.currency ?? "EUR",
            originalCurrency: t.currency ?? "EUR",
            transactionCreateDate: `${t.date ?? "2020-01-01"}T12:00:00Z`,
          });
          if (m.kind === "match") falseMatches++;
        }
        if (Deno.env.get("VERBOSE")) {
          const mark = (v: boolean | null) => (v === null ? "·" : v ? "✓" : "✗");
          console.log(
            `  ${t.file.padEnd(22)} total ${mark(ok.total)} ${r.total} (${t.total})  date ${
              mark(ok.date)
            } ${r.date} (${t.date})  merchant ${
              mark(ok.merchant)
            } ${r.merchant} (${t.merchant})  vat ${mark(ok.vat)} ${
              vatTotal(r.vat)
            } (${t.vat_total})  ${r.ms} ms`,
          );
        }
      }
    } finally {
      await reader.close();
    }
  }
  const share = (k: keyof typeof tally) =>
    `${pct(tally[k][0], tally[k][1])} (${tally[k][0]}/${tally[k][1]})`;
  line(`receipts read right (${truths.length} real): total`, share("total"), "goal ≥ 90 %");
  line("  date", share("date"), "goal ≥ 90 %");
  line("  merchant (contains)", share("merchant"), "goal ≥ 75 %");
  line("  VAT total", share("vat"));
  line(
    "  total by language and capture",
    "",
    [...by].sort().map(([k, [a, b]]) => `${k} ${a}/${b}`).join(", "),
  );
  line(
    "  time per image (this machine, Deno, wasm)",
    `${quantile(times, 0.5)} ms`,
    `p95 ${quantile(times, 0.95)} ms`,
  );
  line("  wrong totals shown as a match", String(falseMatches), "goal 0");
}

if (import.meta.main) {
  await benchReceiptCorpus((name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`)
  );
}
