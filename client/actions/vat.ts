import { requests as reqApi } from "../shared/contract/requests.ts";
import type { Transaction } from "../shared/contract/transactions.ts";
import { vat as api } from "../shared/contract/vat.ts";
import { call } from "../api/http.ts";
import { t } from "../i18n/index.ts";
import { onReplayed, sendWrites, type Write } from "./replay.ts";
import {
  type DoTax,
  doTaxOfFlag,
  linesOf,
  MAX_VAT_LINES,
  reviewProblems,
  vatAmount,
  vatAmountText,
} from "../shared/vat.ts";
import {
  accounting,
  vatCountries,
  type VatDraft,
  vatDraft,
  type VatDraftLine,
} from "../state/receipts.ts";
import {
  accountingCodesAnswer,
  receiptTypes,
  receiptTypesAnswer,
  vatCodes,
  vatCodesAnswer,
} from "../state/lookups.ts";
import { transactionRows, txDetail } from "../state/transactions.ts";
import { receiptReading } from "../state/reading.ts";
import { closeSheet, openSheet, pushBanner, showNotice } from "../state/ui.ts";
import { busy } from "./busy.ts";
import { lookup } from "./lookups.ts";
import { messageOf } from "./messages.ts";
import {
  applySuggestion,
  countrySuggestion,
  readSuggestion,
  type VatSuggestion,
} from "../shared/vat_prefill.ts";
import { changed } from "./changes.ts";

// VAT of the transaction on screen (spec §2 VAT choice and VAT side panel simple
// and advanced, §4 VAT flag and lines, §5 VAT panel, §9 3 lines and 6 characters; §7
// pwasetreceiptdotax, pwaupdatereviewedtransactions and the lookups).

function showTransaction(tx: Transaction): void {
  const d = txDetail.value;
  if (d?.oid === tx.oid) txDetail.value = { ...d, tx };
  transactionRows.value = transactionRows.value.map((r) =>
    r.oid === tx.oid ? { ...r, nbReceipts: tx.nbReceipts, canFlip: tx.canFlip } : r
  );
}

// Queued VAT writes (spec §1 offline) that landed: the transaction as the server now has it.
onReplayed("dotax", (_w, answer) => {
  const tx = (answer as { transaction?: Transaction } | undefined)?.transaction;
  if (tx) showTransaction(tx);
});
onReplayed("review", (w, answer) => {
  const list = (answer as { transactions?: Transaction[] } | undefined)?.transactions ?? [];
  const done = list.find((x) => x.oid === w.target);
  if (done) showTransaction(done);
});

/** One VAT write: what it is, its call and how it shows while it waits. */
interface VatWrite extends Write {
  kind: "dotax" | "review";
  call: Write["call"] & { ep: "vat.setDoTax" | "vat.review" };
}

/** spec §2 VAT choice (unknown, no VAT, has VAT): set at once with pwasetreceiptdotax. */
export async function setVatFlag(dotax: DoTax): Promise<void> {
  const oid = txDetail.value?.oid;
  if (!oid) return;
  await busy(async () => {
    try {
      const r = await sendWrites(oid, [{
        kind: "dotax",
        label: dotax,
        call: { ep: "vat.setDoTax", query: { oid, dotax } },
      }]);
      if (r !== "queued") showTransaction((r.sent as { transaction: Transaction }).transaction);
    } catch (err) {
      pushBanner(messageOf(err));
    }
  });
}

/** The panel's lookups, each through the encrypted cache. */
function loadVatLookups(): Promise<unknown> {
  return Promise.all([
    lookup("lists", "vatcodes", api.vatCodes.response, () => call(api.vatCodes), (d) => {
      vatCodesAnswer.value = d.vatcodes;
    }),
    lookup(
      "lists",
      "receipttypes",
      api.receiptTypes.response,
      () => call(api.receiptTypes),
      (d) => {
        receiptTypesAnswer.value = d.receipttypes;
      },
    ),
    lookup(
      "lists",
      "accountingcodes",
      api.accountingCodes.response,
      () => call(api.accountingCodes),
      (d) => (accountingCodesAnswer.value = d.accountingcodes),
    ),
    lookup("lists", "countries", reqApi.countries.response, () => call(reqApi.countries), (d) => {
      vatCountries.value = d.countrylist.map((c) => ({ value: c.value, label: c.label }));
    }),
  ]);
}

const emptyLine = (): VatDraftLine => ({ oid: null, amount: "" });

/** Opens the VAT side panel on the transaction's current values. */
export async function openVat(): Promise<void> {
  const tx = txDetail.value?.tx;
  if (!tx) return;
  const lines = linesOf(tx).map((l) => ({
    oid: l.oid,
    amount: vatAmountText(l.amount, tx.pricingCurrency),
  })) as [VatDraftLine, VatDraftLine, VatDraftLine];
  vatDraft.value = {
    txOid: tx.oid,
    flag: tx.collectVatFlag,
    countryId: tx.countryId ?? (tx.merchantcountry || null),
    lines,
    typeOid: tx.typeOid,
    accountingCodeOid: tx.accountingCodeOid,
    readOnly: tx.readOnlyVAT,
    error: null,
  };
  openSheet({ kind: "vat" });
  await loadVatLookups();
  // A merchant country the organisation has no codes for is no choice: leave it empty.
  const d = vatDraft.value;
  if (
    d && d.countryId && vatCountries.value.length &&
    !vatCountries.value.some((c) => c.value === d.countryId)
  ) {
    vatDraft.value = { ...d, countryId: null };
  }
  // Nothing chosen yet: the merchant country's standard rate, to confirm with OK, and the
  // receipt type chosen last time on this phone.
  const now = vatDraft.value;
  if (now && now.txOid === tx.oid) {
    // What the receipt read on this phone says comes first; else the country's standard rate.
    suggestVat(receiptSuggestion(tx) ?? countrySuggestion(now.countryId, vatCodes.value));
  }
  const last = lastType();
  const cur = vatDraft.value;
  if (
    cur && cur.txOid === tx.oid && !cur.readOnly && !cur.typeOid && last &&
    receiptTypes.value.some((r) => r.value === last)
  ) {
    vatDraft.value = {
      ...cur,
      typeOid: last,
      suggested: { source: "country", lines: [], unsure: [], ...cur.suggested, type: true },
    };
  }
}

const LAST_TYPE_KEY = "qc_vat_type";
/** The receipt type last confirmed on this phone (an organisation's code, nothing personal). */
function lastType(): string | null {
  try {
    return localStorage.getItem(LAST_TYPE_KEY);
  } catch {
    return null;
  }
}
function keepType(typeOid: string | null): void {
  try {
    if (typeOid) localStorage.setItem(LAST_TYPE_KEY, typeOid);
  } catch { /* private mode */ }
}

/**
 * Fills the open VAT panel's empty lines from a suggestion (the merchant country's standard
 * rate at opening; what the receipt says, once read), never over what the person chose. The
 * advanced form only: the simple form's flag is the person's own statement.
 */
export function suggestVat(s: VatSuggestion | null): void {
  const d = vatDraft.value;
  const tx = txDetail.value?.tx;
  if (!d || !tx || d.readOnly || d.txOid !== tx.oid || accounting.value.vatMode !== "advanced") {
    return;
  }
  const r = applySuggestion(d, s, vatCodes.value, (code, line) =>
    vatAmountText(
      line.amount ?? vatAmount(tx.monetaryAmount, code.percentage, tx.pricingCurrency),
      tx.pricingCurrency,
    ));
  if (!s || (!r.filled.length && !r.unsure.length)) return;
  vatDraft.value = {
    ...r.draft,
    suggested: { source: s.source, lines: r.filled, unsure: r.unsure },
  };
}

/** What the receipt read on this phone (client/actions/reading.ts) suggests for `tx`. */
function receiptSuggestion(tx: Transaction): VatSuggestion | null {
  const r = receiptReading.value;
  return r?.txOid === tx.oid && r.status === "done" && r.read ? readSuggestion(r.read, tx) : null;
}

/**
 * A reading finished while the VAT panel is open on its transaction: it replaces the
 * country's suggestion the person has not touched, and fills an untouched empty panel.
 */
export function offerReadVat(): void {
  const d = vatDraft.value;
  const tx = txDetail.value?.tx;
  if (!d || !tx || d.txOid !== tx.oid) return;
  const s = receiptSuggestion(tx);
  if (!s) return;
  const lines = [...d.lines] as VatDraft["lines"];
  if (d.suggested?.source === "country") {
    const untouched = lines.every((l, i) =>
      d.suggested!.lines.includes(i) || (!l.oid && !l.amount)
    );
    if (!untouched) return;
    for (const i of d.suggested.lines) lines[i] = emptyLine();
    vatDraft.value = { ...d, lines, suggested: undefined };
  }
  suggestVat(s);
}

function patch(p: Partial<VatDraft>): void {
  if (vatDraft.value) vatDraft.value = { ...vatDraft.value, ...p, error: null };
}

export function setVatPanelFlag(flag: boolean | null): void {
  if (!vatDraft.value) return;
  patch(flag === false ? { flag, lines: [emptyLine(), emptyLine(), emptyLine()] } : { flag });
}

/** spec §4: changing the VAT country resets the VAT codes and amounts. */
export function setVatCountry(countryId: string | null): void {
  const d = vatDraft.value;
  if (!d || d.countryId === countryId) return;
  patch({ countryId, lines: [emptyLine(), emptyLine(), emptyLine()], suggested: undefined });
}

/**
 * spec §4: choosing vatN enables its amount, pre-computed (amount × p / (100 + p)) and
 * read-only; clearing the code clears the amount.
 */
export function setVatLineCode(index: number, oid: string | null): void {
  const d = vatDraft.value;
  const tx = txDetail.value?.tx;
  if (!d || !tx || index < 0 || index >= MAX_VAT_LINES) return;
  const code = oid ? vatCodes.value.find((c) => c.oid === oid) : undefined;
  const amount = code
    ? vatAmountText(
      vatAmount(tx.monetaryAmount, code.percentage, tx.pricingCurrency),
      tx.pricingCurrency,
    )
    : "";
  const lines = [...d.lines] as VatDraft["lines"];
  lines[index] = { oid: code ? code.oid : null, amount };
  const s = d.suggested;
  patch({
    lines,
    suggested: s &&
      {
        ...s,
        lines: s.lines.filter((i) => i !== index),
        unsure: s.unsure.filter((i) => i !== index),
      },
  });
}

export function setVatType(typeOid: string | null): void {
  const s = vatDraft.value?.suggested;
  patch({ typeOid, suggested: s && { ...s, type: false } });
}
export function setVatAccounting(accountingCodeOid: string | null): void {
  patch({ accountingCodeOid });
}

/** spec §5: why OK is disabled now (empty when it may be pressed). */
export function vatProblems(d: VatDraft): ReturnType<typeof reviewProblems> {
  const s = accounting.value;
  return reviewProblems({
    readOnly: d.readOnly,
    accountingCodeEnabled: s.accountingCodeEnabled,
    typeEnabled: s.typeEnabled,
    accountingCodeOid: d.accountingCodeOid,
    typeOid: d.typeOid,
  });
}

/**
 * OK: the flag first when it changed (simple form), then pwaupdatereviewedtransactions with
 * the lines (advanced form), the receipt type and the accounting code. The transaction is
 * then reviewed and read-only.
 */
export async function submitVat(): Promise<void> {
  const d = vatDraft.value;
  const tx = txDetail.value?.tx;
  if (!d || !tx || vatProblems(d).length) return;
  const advanced = accounting.value.vatMode === "advanced";
  const s = accounting.value;
  const lines = advanced ? d.lines.filter((l) => l.oid) : [];
  const line = (i: number) => lines[i] ?? null;
  keepType(d.typeOid);
  const ok = await busy(async () => {
    try {
      const flag = advanced && lines.length ? true : d.flag;
      const writes: VatWrite[] = [];
      if (flag !== tx.collectVatFlag) {
        const dotax = doTaxOfFlag(flag);
        writes.push({
          kind: "dotax",
          label: dotax,
          call: { ep: "vat.setDoTax", query: { oid: tx.oid, dotax } },
        });
      }
      writes.push({
        kind: "review",
        label: t("vat.title"),
        call: {
          ep: "vat.review",
          body: {
            transactions: [{
              oid: tx.oid,
              archive: false,
              countryId: lines.length ? d.countryId : null,
              vat1Oid: line(0)?.oid ?? null,
              vat2Oid: line(1)?.oid ?? null,
              vat3Oid: line(2)?.oid ?? null,
              vat1Amount: line(0) ? Number(line(0)!.amount) : null,
              vat2Amount: line(1) ? Number(line(1)!.amount) : null,
              vat3Amount: line(2) ? Number(line(2)!.amount) : null,
              typeOid: s.typeEnabled === "false" ? null : d.typeOid,
              accountingCodeOid: s.accountingCodeEnabled === "false" ? null : d.accountingCodeOid,
            }],
          },
        },
      });
      const r = await sendWrites(tx.oid, writes);
      if (r === "queued") return "queued";
      const done = (r.sent as { transactions: Transaction[] }).transactions
        .find((x) => x.oid === tx.oid);
      if (done) showTransaction(done);
      return true;
    } catch (err) {
      if (vatDraft.value) vatDraft.value = { ...vatDraft.value, error: messageOf(err) };
      return false;
    }
  });
  if (!ok) return;
  vatDraft.value = null;
  closeSheet();
  if (ok === "queued") return;
  showNotice(t("vat.saved"));
  await changed("transaction", tx.oid);
}
