/**
 * `deno task read-receipt` (server/app/read_receipt_cli.ts): one JSON line per file with what
 * the phone's reader reads — a PDF from its text layer, an image through the engine — and a
 * line saying why for a file it cannot read.
 */
import assert from "node:assert/strict";

const CORPUS = new URL("../fixtures/receipts/", import.meta.url).pathname;

async function run(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "server/app/read_receipt_cli.ts", ...args],
    cwd: new URL("../../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  return {
    code: out.code,
    lines: text.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)),
  };
}

Deno.test("[read-receipt] a PDF's text and a scan, one JSON line each", async () => {
  const { code, lines } = await run([
    "--lang",
    "de",
    `${CORPUS}es-shop-02.pdf`,
    `${CORPUS}de-shop-16.jpg`,
  ]);
  assert.equal(code, 0);
  assert.equal(lines.length, 2);
  const [pdf, scan] = lines;
  assert.deepEqual(
    { ...pdf, ms: 0, file: pdf.file.replace(/.*\//, "") },
    {
      file: "es-shop-02.pdf",
      total: 4.6,
      currency: "EUR",
      date: "2024-01-04",
      merchant: "MERCADONA",
      vat: [{ rate: 21, amount: 0.8 }],
      unsure: [],
      ms: 0,
    },
  );
  assert.equal(scan.total, 0.99);
  assert.equal(scan.date, "2014-12-04");
  assert.equal(scan.merchant, "REWE");
  assert.equal(typeof scan.ms, "number");
});

Deno.test("[read-receipt] a file it cannot read: its line says why, exit 1; a bad option: exit 2", async () => {
  const missing = await run([`${CORPUS}no-such-receipt.jpg`]);
  assert.equal(missing.code, 1);
  assert.equal(missing.lines.length, 1);
  assert.match(missing.lines[0].error, /No such file|not found/i);
  assert.equal((await run(["--lang", "it", `${CORPUS}es-shop-02.pdf`])).code, 2);
  assert.equal((await run([])).code, 2);
});
