import { effect } from "@preact/signals-react";
import type { Receipt } from "../shared/contract/documents.ts";
import type { Transaction, TransactionRow } from "../shared/contract/transactions.ts";
import { txReceipts } from "../state/receipts.ts";
import { txFromRow } from "../state/tx_source.ts";
import { transactionRows, txDetail } from "../state/transactions.ts";
import { writeCache } from "./cache.ts";

// The open transaction's detail and its receipts, one cached truth (spec §1 offline, §8 cache).
// The detail used to be cached only when opened, while everything after — an attached or
// removed receipt, a note, a VAT choice, a declaration, a change from the stream — changed it
// on screen only; its receipt list, read again after each, was cached each time. Offline the
// older detail then contradicted its newer list ("Receipts (0)" above a receipt). Now what is
// on screen is what is cached: every new value of the open detail and of its receipt list is
// written through, once (a value just read from the cache, or just cached by its read, is
// not written again). A detail made from its row offline is never cached as the server's.

export const txKey = (oid: string) => `transaction:${oid}`;
export const receiptsKey = (oid: string) => `txreceipts:${oid}`;

/** The values the cache holds already (read from it, or written by their own read). */
let keptTx: Transaction | null = null;
let keptReceipts: Receipt[] | null = null;

effect(() => {
  const tx = txDetail.value?.tx;
  const fromRow = txFromRow.value;
  if (!tx || tx === keptTx || fromRow === tx.oid) return;
  keptTx = tx;
  void writeCache("lists", txKey(tx.oid), { transaction: tx });
});

effect(() => {
  const list = txReceipts.value;
  if (!list || list.receipts === keptReceipts) return;
  keptReceipts = list.receipts;
  void writeCache("lists", receiptsKey(list.txOid), { receipts: list.receipts });
});

/** The transaction's row in the list, if it is there. */
export const rowOf = (oid: string) => transactionRows.value.find((r) => r.oid === oid) ?? null;

/**
 * A cached detail with what its row knows newer: the list is read again after every change
 * (this phone's, another device's, a replayed write's), the detail only while it is open.
 */
export function withRow(tx: Transaction, row: TransactionRow | null): Transaction {
  if (!row) return tx;
  if (row.nbReceipts === tx.nbReceipts && row.needsAttention === tx.needsAttention) return tx;
  return { ...tx, nbReceipts: row.nbReceipts, needsAttention: row.needsAttention };
}

/**
 * Shows the server's transaction (or its cached copy) in the open detail. `cached`: the cache
 * holds exactly this value already.
 */
export function showTx(oid: string, tx: Transaction, cached: boolean): void {
  const d = txDetail.value;
  if (d?.oid !== oid) return;
  if (cached) keptTx = tx;
  if (txFromRow.value === oid) txFromRow.value = null;
  txDetail.value = { ...d, tx };
}

/** Shows a receipt list in the open detail; `cached`: the cache holds exactly it already. */
export function showReceipts(txOid: string, receipts: Receipt[], cached: boolean): void {
  if (txDetail.value?.oid !== txOid) return;
  if (cached) keptReceipts = receipts;
  txReceipts.value = { txOid, receipts };
}

/**
 * spec §1 offline: a transaction of the cached list never opened on this phone, with no
 * network, opens from its row — a real detail (photo, receipts, comments, all queued), with
 * what only the server knows left empty and said so on screen (VAT, documents, declaration).
 */
export function showFromRow(oid: string): void {
  const d = txDetail.value;
  const row = d?.oid === oid ? (d.row ?? rowOf(oid)) : null;
  if (!d || !row || d.tx) return;
  txFromRow.value = oid;
  txDetail.value = { ...d, row, tx: detailOfRow(row) };
}

/** A detail built from a row: the row's fields, the rest unknown (null, empty, false). */
export function detailOfRow(row: TransactionRow): Transaction {
  return {
    ...row,
    declaration: null,
    canDeclare: false,
    originOid: null,
    authorizationId: null,
    refusedReasonDecoded: "",
    refusedReasonText: "",
    mcc: "",
    exchangeRate: null,
    amountAuthorized: row.monetaryAmount,
    amountCaptured: 0,
    amountRefunded: 0,
    capturedDate: null,
    nbDocuments: 0,
    documents: [],
    reviewed: false,
    collectVatFlag: null,
    readOnlyVAT: false,
    reviewEnabled: false,
    typeOid: null,
    accountingCodeOid: null,
    countryId: null,
    vat1Oid: null,
    vat2Oid: null,
    vat3Oid: null,
    vat1Amount: null,
    vat2Amount: null,
    vat3Amount: null,
  };
}
