import type { ComboItem, ReviewLine, VatCode } from "../../client/api/contract/vat.ts";
import type { Transaction } from "../../client/api/contract/transactions.ts";
import type { TranslationKey } from "../../client/i18n/locales/en.ts";
import { fromMinor, minorDigits } from "../../client/lib/currency_units.ts";
import { TX_STATUS } from "../../client/lib/transaction_rules.ts";
import {
  type DoTax,
  flagOfDoTax,
  MAX_VAT_LINES,
  type TriState,
  vatMinor,
} from "../../client/lib/vat.ts";
import { badRequest, conflict, HttpError, notFound } from "../errors.ts";
import type { Deps } from "../env.ts";
import { translate } from "../i18n.ts";
import type { TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";
import { RETRIES } from "./request_checks.ts";
import { overdueDays, toTransaction } from "./transactions.ts";

// VAT and accounting of card transactions (issue 12; spec §3 Transaction VAT fields and VAT
// code, §4 VAT flag, §5 VAT panel, §7 pwavatcodes, pwaaccountingcodes, pwareceipttypes,
// pwasetreceiptdotax, pwaupdatereviewedtransactions, §9 VAT lines up to 3). The arithmetic is
// client/lib/vat.ts, the one the VAT panel runs, so the two sides cannot disagree by a cent.
// VAT amounts are kept in the record as the API carries them (major units of the pricing
// currency, exactly the cents vatMinor computed): toTransaction answers them as they are.

type Lines = TransactionRecord["vat"];
type Params = Record<string, string | number>;

/** Why a transaction may not take a VAT change: a translation key, its status and parameters. */
export interface Problem {
  status: 409 | 422;
  key: TranslationKey;
  params?: Params;
}

/** What a review checks against: the organisation's settings and reference lists. */
export interface VatRefs {
  accountingCodeEnabled: TriState;
  typeEnabled: TriState;
  countries: ReadonlySet<string>;
  codes: ReadonlyMap<string, VatCode>;
  accountingCodes: ReadonlySet<string>;
  receiptTypes: ReadonlySet<string>;
}

/** What one review would write, every absent or empty field null. */
export interface Wanted {
  vat: Lines;
  countryId: string | null;
  typeOid: string | null;
  accountingCodeOid: string | null;
}

const SLOTS = [1, 2, 3] as const;
const oidKey = (i: 1 | 2 | 3) => `vat${i}Oid` as const;
const amountKey = (i: 1 | 2 | 3) => `vat${i}Amount` as const;
const text = (s: string | null | undefined) => (s ? s : null);
const num = (n: number | null | undefined) => (typeof n === "number" ? n : null);

/** 'vat.amountMismatch' → 'amount_mismatch' (the convention of request_checks.ts). */
export function codeOf(key: string): string {
  return key.replace(/^[a-z]+\./, "").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A review line of the API as what it asks to write. */
export function wantedOf(line: ReviewLine): Wanted {
  return {
    vat: {
      vat1Oid: text(line.vat1Oid),
      vat2Oid: text(line.vat2Oid),
      vat3Oid: text(line.vat3Oid),
      vat1Amount: num(line.vat1Amount),
      vat2Amount: num(line.vat2Amount),
      vat3Amount: num(line.vat3Amount),
    },
    countryId: text(line.countryId),
    typeOid: text(line.typeOid),
    accountingCodeOid: text(line.accountingCodeOid),
  };
}

/** spec §4: refused and moved transactions hide receipts and VAT. */
export function isRefused(t: Pick<TransactionRecord, "transactionStatus">): boolean {
  return t.transactionStatus === TX_STATUS.refused || t.transactionStatus === TX_STATUS.moved;
}

/** An amount of `currency` in (possibly fractional) minor units. */
const minorOf = (amount: number, currency: string) => amount * 10 ** minorDigits(currency);
/** Equal to the minor unit (a float like 1.67 × 100 = 166.99999999999997 is 167). */
const sameMinor = (amount: number, minor: number, currency: string) =>
  Math.abs(minorOf(amount, currency) - minor) < 1e-6;

/** Whether a review asks exactly what a reviewed transaction holds (a replay: GUIDE §5). */
export function sameReview(t: TransactionRecord, w: Wanted): boolean {
  if (
    t.countryId !== w.countryId || t.typeOid !== w.typeOid ||
    t.accountingCodeOid !== w.accountingCodeOid
  ) return false;
  return SLOTS.every((i) => {
    const a = w.vat[amountKey(i)], b = t.vat[amountKey(i)];
    if (t.vat[oidKey(i)] !== w.vat[oidKey(i)]) return false;
    if (a === null || b === null) return a === b;
    const m = minorOf(b, t.pricingCurrency);
    return sameMinor(a, Math.round(m), t.pricingCurrency);
  });
}

/** A setting 'true' | 'false' | 'required' against a given value of its list. */
function optionProblem(
  setting: TriState,
  value: string | null,
  known: ReadonlySet<string>,
  keys: { required: TranslationKey; disabled: TranslationKey; unknown: TranslationKey },
): Problem | null {
  if (value === null) return setting === "required" ? { status: 422, key: keys.required } : null;
  if (setting === "false") return { status: 422, key: keys.disabled };
  if (!known.has(value)) return { status: 422, key: keys.unknown, params: { code: value } };
  return null;
}

/**
 * spec §5 VAT panel and §7 pwaupdatereviewedtransactions: what is wrong with reviewing `t`
 * with `w` (the first problem), or the VAT lines to write, amounts canonical to the cent.
 * Pure: ownership, and whether `t` is already reviewed, are the caller's.
 */
export function checkReview(
  t: TransactionRecord,
  w: Wanted,
  refs: VatRefs,
): { problem: Problem } | { vat: Lines } {
  const fail = (status: 409 | 422, key: TranslationKey, params?: Params) => ({
    problem: { status, key, params },
  });
  if (isRefused(t)) return fail(409, "vat.refused");
  // Reviewing lifts the missing-receipts block (spec §5): not without a receipt.
  if (t.transactionType === "Purchase" && t.nbReceipts < 1) return fail(409, "vat.receiptMissing");
  const given = SLOTS.filter((i) => w.vat[oidKey(i)] !== null);
  let gap = false;
  for (const i of SLOTS) {
    const code = w.vat[oidKey(i)], amount = w.vat[amountKey(i)];
    if (code === null && amount !== null) gap = true;
    if (code !== null && i > given.length) gap = true;
  }
  if (gap) return fail(422, "vat.lineGap");
  if (given.length && t.collectVatFlag === false) return fail(422, "vat.flagConflict");
  const country = w.countryId;
  if (given.length && country === null) return fail(422, "vat.countryRequired");
  if (country !== null && !refs.countries.has(country)) {
    return fail(422, "vat.unknownCountry", { country });
  }
  const cur = t.pricingCurrency;
  const vat: Lines = {
    vat1Oid: null,
    vat2Oid: null,
    vat3Oid: null,
    vat1Amount: null,
    vat2Amount: null,
    vat3Amount: null,
  };
  const seen = new Set<string>();
  let sum = 0;
  for (const i of given.slice(0, MAX_VAT_LINES)) {
    const oid = w.vat[oidKey(i)]!;
    const code = refs.codes.get(oid);
    if (!code || code.countryid !== country) {
      return fail(422, "vat.unknownCode", { code: oid, country: country! });
    }
    if (seen.has(oid)) return fail(422, "vat.duplicateCode", { code: oid });
    seen.add(oid);
    const expected = vatMinor(t.amount, code.percentage);
    const amount = w.vat[amountKey(i)];
    if (amount === null || !sameMinor(amount, expected, cur)) {
      return fail(422, "vat.amountMismatch", {
        line: i,
        expected: fromMinor(expected, cur).toFixed(minorDigits(cur)),
      });
    }
    sum += expected;
    vat[oidKey(i)] = oid;
    vat[amountKey(i)] = fromMinor(expected, cur);
  }
  if (Math.abs(sum) > Math.abs(t.amount)) return fail(422, "vat.sumTooHigh");
  const acc = optionProblem(refs.accountingCodeEnabled, w.accountingCodeOid, refs.accountingCodes, {
    required: "vat.accountingRequired",
    disabled: "vat.accountingDisabled",
    unknown: "vat.unknownAccountingCode",
  });
  if (acc) return { problem: acc };
  const type = optionProblem(refs.typeEnabled, w.typeOid, refs.receiptTypes, {
    required: "vat.typeRequired",
    disabled: "vat.typeDisabled",
    unknown: "vat.unknownType",
  });
  if (type) return { problem: type };
  return { vat };
}

/** The organisation's settings and lists a review checks against. */
export async function vatRefs(deps: Deps): Promise<VatRefs> {
  const org = deps.store.org;
  const [meta, countries, codes, acc, types] = await Promise.all([
    org.meta(),
    org.list<{ id: string }>("country"),
    vatCodes(deps),
    accountingCodes(deps),
    receiptTypes(deps),
  ]);
  return {
    // The pwalists defaults (server/routes/session.ts) for an organisation not yet loaded.
    accountingCodeEnabled: meta?.settings.accountingCodeEnabled ?? "false",
    typeEnabled: meta?.settings.typeEnabled ?? "true",
    countries: new Set(countries.map((c) => c.id)),
    codes: new Map(codes.map((c) => [c.oid, c])),
    accountingCodes: new Set(acc.map((a) => a.value)),
    receiptTypes: new Set(types.map((r) => r.value)),
  };
}

/** spec §7 pwavatcodes: the organisation's VAT codes, all or those of one country. */
export async function vatCodes(deps: Deps, countryid?: string): Promise<VatCode[]> {
  const all = await deps.store.org.list<VatCode>("vatcode");
  return all
    .filter((v) => !countryid || v.countryid === countryid)
    .map((v) => ({
      oid: v.oid,
      description: v.description,
      percentage: v.percentage,
      countryid: v.countryid,
    }));
}

const combo = (items: ComboItem[]): ComboItem[] =>
  items.map((i) => ({ value: i.value, label: i.label }));

/** spec §7 pwaaccountingcodes. */
export async function accountingCodes(deps: Deps): Promise<ComboItem[]> {
  return combo(await deps.store.org.list<ComboItem>("acccode"));
}

/** spec §7 pwareceipttypes. */
export async function receiptTypes(deps: Deps): Promise<ComboItem[]> {
  return combo(await deps.store.org.list<ComboItem>("receipttype"));
}

type Tr = Awaited<ReturnType<typeof translate>>;

/** A problem as the error answer of spec §7: `{error, message, oid}` in the user's language. */
function refusal(tr: Tr, p: Problem, oid: string): HttpError {
  return new HttpError(p.status, codeOf(p.key), tr(p.key, p.params), { oid });
}

const NO_LINES: Lines = {
  vat1Oid: null,
  vat2Oid: null,
  vat3Oid: null,
  vat1Amount: null,
  vat2Amount: null,
  vat3Amount: null,
};

/**
 * spec §7 pwasetreceiptdotax, §4 VAT flag: unknown, no VAT (which clears the lines), has
 * VAT. Refused or moved transactions take none; a reviewed one is read-only, but the same
 * flag sent again is answered as a success (a retry after a lost answer, GUIDE §5).
 */
export async function setDoTax(
  deps: Deps,
  user: User,
  oid: string,
  dotax: DoTax,
): Promise<Transaction> {
  const tr = await translate(user.locale);
  const flag = flagOfDoTax(dotax);
  const { transactions, kv } = deps.store;
  for (let i = 0; i < RETRIES; i++) {
    const entry = await transactions.get(user.oid, oid);
    const t = entry.value;
    if (!t) throw notFound();
    if (isRefused(t)) throw refusal(tr, { status: 409, key: "vat.refused" }, oid);
    const view = async (r: TransactionRecord) =>
      toTransaction(r, await overdueDays(deps), deps.now());
    if (t.reviewed) {
      if (t.collectVatFlag === flag) return await view(t);
      throw refusal(tr, { status: 409, key: "vat.readOnly" }, oid);
    }
    const next: TransactionRecord = {
      ...t,
      collectVatFlag: flag,
      vat: flag === false ? { ...NO_LINES } : t.vat,
    };
    const same = t.collectVatFlag === flag &&
      SLOTS.every((s) => t.vat[oidKey(s)] === next.vat[oidKey(s)]);
    if (same) return await view(t);
    next.updatedAt = deps.now();
    const op = transactions.put(kv.atomic().check(entry), next);
    await deps.faults?.beforeCommit?.("vat.dotax");
    if ((await op.commit()).ok) return await view(next);
  }
  throw conflict(tr("request.busy"));
}

/** What reviewing one transaction does: nothing (a replay) or write this record. */
type Plan = { same: TransactionRecord } | { write: TransactionRecord };

function plan(
  tr: Tr,
  t: TransactionRecord | null,
  w: Wanted,
  oid: string,
  refs: VatRefs,
  now: number,
): Plan {
  if (!t) throw notFound();
  if (isRefused(t)) throw refusal(tr, { status: 409, key: "vat.refused" }, oid);
  if (t.reviewed) {
    if (sameReview(t, w)) return { same: t };
    throw refusal(tr, { status: 409, key: "vat.readOnly" }, oid);
  }
  const r = checkReview(t, w, refs);
  if ("problem" in r) throw refusal(tr, r.problem, oid);
  const lines = r.vat.vat1Oid !== null;
  return {
    write: {
      ...t,
      vat: r.vat,
      countryId: w.countryId,
      typeOid: w.typeOid,
      accountingCodeOid: w.accountingCodeOid,
      collectVatFlag: lines ? true : t.collectVatFlag,
      reviewed: true,
      updatedAt: now,
    },
  };
}

/**
 * spec §7 pwaupdatereviewedtransactions: every transaction is checked before any is written
 * (all or nothing as far as the input goes); then each is written by its own checked atomic
 * operation (a KV operation holds at most 10 checks, a list up to 50). One changed meanwhile
 * is read again and checked again before it is written; if it no longer passes (refused by
 * the issuer in between), its refusal is answered and the ones before it stay reviewed: a
 * resend then finds them reviewed with the same values, which answers 200 (GUIDE §5).
 */
export async function review(
  deps: Deps,
  user: User,
  lines: ReviewLine[],
): Promise<Transaction[]> {
  const tr = await translate(user.locale);
  const wanted = new Map<string, Wanted>();
  for (const l of lines) {
    const w = wantedOf(l);
    const before = wanted.get(l.oid);
    if (before && JSON.stringify(before) !== JSON.stringify(w)) {
      throw badRequest("invalid_body", `transaction ${l.oid} is given twice with different values`);
    }
    wanted.set(l.oid, w);
  }
  const oids = [...wanted.keys()];
  const { transactions, kv } = deps.store;
  const refs = await vatRefs(deps);
  const entries = await Promise.all(oids.map((oid) => transactions.get(user.oid, oid)));
  const now = deps.now();
  const plans = entries.map((e, i) => plan(tr, e.value, wanted.get(oids[i])!, oids[i], refs, now));
  const done: TransactionRecord[] = [];
  for (let i = 0; i < oids.length; i++) {
    let p = plans[i];
    let entry = entries[i];
    for (let attempt = 0; "write" in p; attempt++) {
      if (attempt === RETRIES) throw conflict(tr("request.busy"));
      const op = transactions.put(kv.atomic().check(entry), p.write);
      await deps.faults?.beforeCommit?.("vat.review");
      if ((await op.commit()).ok) break;
      entry = await transactions.get(user.oid, oids[i]);
      p = plan(tr, entry.value, wanted.get(oids[i])!, oids[i], refs, deps.now());
    }
    done.push("write" in p ? p.write : p.same);
  }
  const days = await overdueDays(deps);
  return done.map((t) => toTransaction(t, days, deps.now()));
}
