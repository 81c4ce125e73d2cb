import type { ComboItem, ReviewLine, VatCode } from "../../client/shared/contract/vat.ts";
import type { Transaction } from "../../client/shared/contract/transactions.ts";
import { type DoTax, flagOfDoTax, MAX_VAT_LINES } from "../../client/shared/vat.ts";
import { badRequest, conflict, HttpError, notFound } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import { labelIn, labelMap, type OrgLabel } from "../org/labels.ts";
import { noVatLines, type TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";
import { RETRIES } from "./request_checks.ts";
import { overdueDays, toTransaction } from "./transactions.ts";
import {
  checkReview,
  codeOf,
  extraVatLine,
  isRefused,
  oidKey,
  type Problem,
  sameReview,
  SLOTS,
  type VatRefs,
  type Wanted,
  wantedOf,
} from "./vat_checks.ts";

// VAT and accounting of card transactions (spec §3 Transaction VAT fields and VAT
// code, §4 VAT flag, §5 VAT panel, §7 pwavatcodes, pwaaccountingcodes, pwareceipttypes,
// pwasetreceiptdotax, pwaupdatereviewedtransactions, §9 VAT lines up to 3): the lists and the
// two writes. What a review may carry is checked by the pure functions of vat_checks.ts.

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

type Stored<T, K extends string> = Omit<T, K> & Record<K, OrgLabel>;

/**
 * spec §7 pwavatcodes: the organisation's VAT codes, all or those of one country; the
 * description in `lang` (English when the organisation gave none in it), with the words of
 * every language it gave in `descriptions` (client/shared/org_words.ts).
 */
export async function vatCodes(deps: Deps, countryid?: string, lang = "en"): Promise<VatCode[]> {
  const all = await deps.store.org.list<Stored<VatCode, "description">>("vatcode");
  return all
    .filter((v) => !countryid || v.countryid === countryid)
    .map((v) => ({
      oid: v.oid,
      description: labelIn(v.description, lang),
      descriptions: labelMap(v.description),
      percentage: v.percentage,
      countryid: v.countryid,
    }));
}

const combo = (items: Stored<ComboItem, "label">[], lang: string): ComboItem[] =>
  items.map((i) => ({ value: i.value, label: labelIn(i.label, lang), labels: labelMap(i.label) }));

/** spec §7 pwaaccountingcodes. */
export async function accountingCodes(deps: Deps, lang = "en"): Promise<ComboItem[]> {
  return combo(await deps.store.org.list<Stored<ComboItem, "label">>("acccode"), lang);
}

/** spec §7 pwareceipttypes. */
export async function receiptTypes(deps: Deps, lang = "en"): Promise<ComboItem[]> {
  return combo(await deps.store.org.list<Stored<ComboItem, "label">>("receipttype"), lang);
}

type Tr = Awaited<ReturnType<typeof translate>>;

/** A problem as the error answer of spec §7: `{error, message, oid}` in the user's language. */
function refusal(tr: Tr, p: Problem, oid: string): HttpError {
  return new HttpError(p.status, codeOf(p.key), tr(p.key, p.params), { oid });
}

/**
 * spec §7 pwasetreceiptdotax, §4 VAT flag: unknown, no VAT (which clears the lines), has
 * VAT. Refused or moved transactions take none; a reviewed one is read-only, but the same
 * flag sent again is answered as a success (a retry after a lost answer, engineering.md §5).
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
      vat: flag === false ? noVatLines() : t.vat,
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
 * resend then finds them reviewed with the same values, which answers 200 (engineering.md §5).
 */
export async function review(
  deps: Deps,
  user: User,
  lines: ReviewLine[],
): Promise<Transaction[]> {
  const tr = await translate(user.locale);
  const wanted = new Map<string, Wanted>();
  for (const l of lines) {
    if (extraVatLine(l) !== null) {
      throw refusal(tr, {
        status: 422,
        key: "vat.tooManyLines",
        params: { max: MAX_VAT_LINES },
      }, l.oid);
    }
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
