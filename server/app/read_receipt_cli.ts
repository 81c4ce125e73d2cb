/**
 * `deno task read-receipt [--lang en|fr|de|es] FILE…`: one JSON line per file, what the phone's
 * reader would read from it: {"file","total","currency","date","merchant","vat":[{"rate",
 * "amount"}],"unsure","ms"} (null where not read). Operators check a batch with it.
 */
import { openReader } from "../ocr/engine.ts";
import type { ReceiptLanguage } from "../../client/shared/receipt_text.ts";

const args = [...Deno.args];
let lang: ReceiptLanguage | undefined;
const at = args.indexOf("--lang");
if (at >= 0) {
  const v = args.splice(at, 2)[1];
  if (!["en", "fr", "de", "es"].includes(v)) {
    console.error("--lang: en, fr, de or es");
    Deno.exit(2);
  }
  lang = v as ReceiptLanguage;
}
if (!args.length) {
  console.error("usage: deno task read-receipt [--lang en|fr|de|es] FILE…");
  Deno.exit(2);
}
const reader = await openReader(lang);
let failed = 0;
try {
  for (const file of args) {
    try {
      const r = await reader.read(await Deno.readFile(file));
      const { total, currency, date, merchant, vat, unsure, ms } = r;
      console.log(JSON.stringify({ file, total, currency, date, merchant, vat, unsure, ms }));
    } catch (err) {
      failed++;
      console.log(JSON.stringify({ file, error: (err as Error).message }));
    }
  }
} finally {
  await reader.close();
}
Deno.exit(failed ? 1 : 0);
