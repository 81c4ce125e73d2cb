/** Helpers shared by the export tests (export_test.ts, export_records_test.ts). */
import assert from "node:assert/strict";
import { isoDay } from "../../client/shared/dates.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";
import { login } from "./api.ts";
import { parseCsv } from "./export_fixture.ts";
import { purchase, refund } from "../../server/domain/purchases.ts";
import { bookedAt, type TransactionRecord } from "../../server/store/transactions.ts";
import { CSV_COLUMNS } from "../../server/export/csv.ts";

export const DAY = 86_400_000;

export const SCIM_TOKEN = "scim-test-token-0123456789abcdef";

export async function demo() {
  const api = await testApp({ DEMO_HISTORY: "true", SCIM_TOKEN });
  const fin = await login(api, DEMO.approver);
  const emp = await login(api, DEMO.employee);
  // The demo's active card gets a purchase refunded in part and a merchant's credit.
  const reqs = await api.deps.store.requests.byUser(emp.oid);
  const card = reqs.find((r) => r.hasCard && r.cardStatusCode === "Active")!;
  const bought = await purchase(api.deps, {
    card: card.oid,
    amount: 40,
    merchantName: "Office Depot",
    merchantCountry: "FR",
    capture: true,
  } as never);
  await refund(api.deps, { transactionOid: bought.transactionOid!, amount: 15 } as never);
  await refund(api.deps, { card: card.oid, amount: 10, merchantName: "SNCF" } as never);
  const to = isoDay(Date.now());
  const from = isoDay(Date.now() - 60 * DAY);
  return { api, fin, emp, from, to };
}

/** The live transactions booked in [from, to], straight from the store. */
export async function booked(api: TestApi, from: string, to: string): Promise<TransactionRecord[]> {
  const out: TransactionRecord[] = [];
  const end = Date.parse(to) + DAY;
  for await (const e of api.deps.store.kv.list<TransactionRecord>({ prefix: ["transaction"] })) {
    const at = bookedAt(e.value);
    if (at !== null && !e.value.movedToOid && at >= Date.parse(from) && at < end) {
      out.push(e.value);
    }
  }
  return out;
}

export function csvTable(text: string, sep = ",") {
  assert.ok(text.startsWith("\uFEFF"), "a byte-order mark");
  const [head, ...rows] = parseCsv(text.slice(1), sep);
  assert.equal(head.length, CSV_COLUMNS.length);
  for (const r of rows) assert.equal(r.length, head.length, r.join("|"));
  const col = (r: string[], k: string) => r[CSV_COLUMNS.indexOf(k)];
  return { head, rows, col };
}
