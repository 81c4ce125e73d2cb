/** Helpers shared by the vat tests (vat_test.ts, vat_review_test.ts). */
import assert from "node:assert/strict";
import { type TestApi } from "../helpers.ts";
import { type Headers } from "./api.ts";
import { get, post } from "./purchase_helpers.ts";
import { transactionRecord } from "./transaction_records.ts";
import type { VatCode } from "../../client/shared/contract/vat.ts";
import type { TransactionRecord } from "../../server/store/transactions.ts";

/** A transaction of `userOid` written straight into the repository (with a receipt). */
export async function tx(api: TestApi, userOid: string, over: Partial<TransactionRecord> = {}) {
  const t = transactionRecord(userOid, { nbReceipts: 1, ...over });
  const { transactions, kv } = api.deps.store;
  assert.ok((await transactions.put(kv.atomic(), t).commit()).ok);
  return t;
}

export async function record(api: TestApi, t: TransactionRecord) {
  return (await api.deps.store.transactions.get(t.userOid, t.oid)).value!;
}

/** VAT codes and countries added the way the importer stores them (server/org_sync/import.ts). */
export async function addCodes(api: TestApi) {
  const op = api.deps.store.kv.atomic()
    .set(["country", "CH"], { id: "CH", name: "Switzerland", label: "Schweiz" })
    .set(["country", "ZZ"], { id: "ZZ", name: "Testland", label: "Testland" });
  const codes: VatCode[] = [
    { oid: "vat-ch-7.7", description: "CH standard 7.7%", percentage: 7.7, countryid: "CH" },
    { oid: "vat-ch-0", description: "CH exempt 0%", percentage: 0, countryid: "CH" },
    { oid: "vat-zz-100", description: "ZZ 100%", percentage: 100, countryid: "ZZ" },
    { oid: "vat-zz-90", description: "ZZ 90%", percentage: 90, countryid: "ZZ" },
    { oid: "vat-zz-80", description: "ZZ 80%", percentage: 80, countryid: "ZZ" },
  ];
  for (const c of codes) op.set(["vatcode", c.oid], c);
  assert.ok((await op.commit()).ok);
}

export const reviewCall = (api: TestApi, h: Headers, transactions: unknown[]) =>
  post(api, h, "pwaupdatereviewedtransactions", { transactions });

export const dotax = (api: TestApi, h: Headers, oid: string, v: string) =>
  get(api, h, `pwasetreceiptdotax?oid=${oid}&dotax=${v}&archive=0`);

/** The demo organisation requires a receipt type (typeEnabled 'required'). */
export const TYPE = { typeOid: "rt-invoice" };
