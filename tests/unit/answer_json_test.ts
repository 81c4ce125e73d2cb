import assert from "node:assert/strict";
import { answerJson, immutableJson } from "../../server/json.ts";

const text = (v: unknown) => new TextDecoder().decode(answerJson(v));

Deno.test("[json] answers are JSON.stringify's text, kept lists spliced in", () => {
  const rows = immutableJson([{ oid: "a", purpose: "Café «x»\n", amount: 1.5, n: null }]);
  const answers: unknown[] = [
    { a: 1, b: undefined, c: () => 1, d: "é", e: [1, undefined, { x: undefined }], f: {} },
    { expenses: { expenseslist: rows }, again: rows, empty: {}, when: new Date(0) },
    [rows, 1],
    "text",
    3,
    null,
    {},
  ];
  for (const v of answers) assert.equal(text(v), JSON.stringify(v));
  // The kept text is made once: a later change to a kept value is not seen (never change one).
  assert.equal(text({ rows }), JSON.stringify({ rows }));
  (rows[0] as { oid: string }).oid = "changed";
  assert.equal(text({ rows }).includes('"oid":"a"'), true);
});
