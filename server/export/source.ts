/**
 * Where the accounting export reads from (docs/export.md): the live transactions booked in a
 * period, by the booked index (store/transactions.ts), a page at a time — each with its card
 * holder, request, account, receipts and last export — so a month of 50,000 transactions is
 * never held at once. An index entry is trusted only when the transaction still says the same
 * (booked then, not moved by a flip): a transaction is read once, however the index was kept.
 */
import { isoDay } from "../../client/shared/dates.ts";
import type { Deps } from "../domain/env.ts";
import { labelIn, type OrgLabel } from "../org/labels.ts";
import type { DocumentRecord } from "../store/documents.ts";
import type { OrgAccount } from "../store/org.ts";
import { keepBounded } from "../store/bounded.ts";
import type { RequestRecord } from "../store/requests.ts";
import { BOOKED, bookedAt, type TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";
import type { FinanceScope } from "../domain/finance.ts";
import {
  type AccountRef,
  type ExportEntry,
  linesOf,
  type RowContext,
  type VatCodeRef,
} from "./rows.ts";

export const DAY_MS = 86_400_000;
const PAGE = 100;
/** Kept holders and requests: a page's worth many times over, the oldest let go first. */
const CACHE = 5000;

export interface SourceParams {
  from: string;
  to: string;
  accountOid: string | null;
  onlyNew: boolean;
  layout: "folders" | "flat";
}

export interface SourceItem {
  entry: ExportEntry;
  lines: ReturnType<typeof linesOf>["lines"];
  stamp: string;
}

/** A file-name part: accents dropped, anything but letters, digits, dot, dash out. */
export function namePart(s: string, max = 40): string {
  const out = s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9.-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "").slice(0, max);
  return out || "x";
}

const EXT: Record<string, string> = {
  "application/pdf": "pdf",
  "image/png": "png",
  "image/jpeg": "jpg",
};

/** Where each receipt of a transaction goes in the ZIP. */
export function receiptPaths(
  t: Pick<TransactionRecord, "oid" | "cardId" | "merchantname">,
  booked: string,
  holder: string,
  docs: DocumentRecord[],
  layout: "folders" | "flat",
): string[] {
  const dir = layout === "folders" ? `receipts/${namePart(holder)}/` : "receipts/";
  const who = layout === "flat" ? `_${namePart(holder)}` : "";
  return docs.map((d, i) => {
    const n = docs.length > 1 ? `_${i + 1}` : "";
    const ext = EXT[d.mimeType] ?? "bin";
    return `${dir}${booked}${who}_${namePart(t.cardId)}_${namePart(t.merchantname, 30)}_` +
      `${t.oid.slice(0, 8)}${n}.${ext}`;
  });
}

/** The organisation's references the rows need, read once per export. */
export async function rowContext(deps: Deps, lang: string): Promise<{
  ctx: RowContext;
  accounts: Map<string, AccountRef>;
}> {
  const org = deps.store.org;
  type StoredCode = Omit<VatCodeRef, "description"> & { description: OrgLabel };
  const coded = async (c: string) => [
    ...await org.archived<{ oid: string; value: string }>(c),
    ...await org.list<{ oid: string; value: string }>(c),
  ];
  const [codes, accounts, ...lists] = await Promise.all([
    [...await org.archived<StoredCode>("vatcode"), ...await org.list<StoredCode>("vatcode")],
    org.list<OrgAccount>("account"),
    coded("costcenter"),
    coded("ledger"),
    coded("project"),
  ]);
  return {
    ctx: {
      codes: new Map(
        codes.map((c) => [c.oid, { ...c, description: labelIn(c.description, lang) }]),
      ),
      rates: deps.issuer.rates(),
      values: new Map(lists.flat().map((c) => [c.oid, c.value])),
    },
    accounts: new Map(accounts.map((a) => [a.oid, {
      oid: a.oid,
      value: a.value,
      label: labelIn(a.label, lang),
      currency: a.currency,
    }])),
  };
}

/** The period's transactions, in booking order, as the export's lines. */
export async function* exportItems(
  deps: Deps,
  p: SourceParams,
  scope: FinanceScope,
  refs: { ctx: RowContext; accounts: Map<string, AccountRef> },
): AsyncGenerator<SourceItem> {
  const { kv } = deps.store;
  const start = Date.parse(`${p.from}T00:00:00Z`);
  const end = Date.parse(`${p.to}T00:00:00Z`) + DAY_MS;
  const users = new Map<string, User | null>();
  const requests = new Map<string, RequestRecord | null>();
  /** Whether each export a pointer names finished. */
  const done = new Map<string, boolean>();
  let page: { at: number; oid: string; userOid: string }[] = [];
  const flush = async function* () {
    // The page's records, its requests and holders not yet kept: ten keys per read, the reads
    // of a page in parallel (a page is at most PAGE transactions: memory stays bounded).
    const keys = page.map((e) => deps.store.transactions.key(e.userOid, e.oid));
    const txs = (await manyOf<TransactionRecord>(kv, keys)).map((e) => e.value ?? null);
    const live = txs.filter((t, i): t is TransactionRecord =>
      !!t && !t.movedToOid && bookedAt(t) === page[i].at
    );
    const missing = [...new Set(live.map((t) => `${t.userOid}/${t.expenseOid}`))]
      .filter((rk) => !requests.has(rk));
    const found = await manyOf<RequestRecord>(
      kv,
      missing.map((rk) => deps.store.requests.key(...(rk.split("/") as [string, string]))),
    );
    missing.forEach((rk, i) => keepBounded(requests, rk, found[i].value ?? null, CACHE));
    const holders = [...new Set(live.map((t) => t.userOid))].filter((u) => !users.has(u));
    const people = await manyOf<User>(kv, holders.map((u) => ["user", u]));
    holders.forEach((u, i) => keepBounded(users, u, people[i].value ?? null, CACHE));
    const picked: {
      t: TransactionRecord;
      request: RequestRecord | null;
      account: AccountRef | null;
    }[] = [];
    for (const t of live) {
      const rk = `${t.userOid}/${t.expenseOid}`;
      let request = requests.get(rk);
      if (request === undefined) {
        request = (await deps.store.requests.get(t.userOid, t.expenseOid)).value ?? null;
        keepBounded(requests, rk, request, CACHE);
      }
      const accountOid = request?.accountOid ?? null;
      if (scope.accounts && (!accountOid || !scope.accounts.has(accountOid))) continue;
      if (p.accountOid && accountOid !== p.accountOid) continue;
      picked.push({
        t,
        request,
        account: accountOid ? refs.accounts.get(accountOid) ?? null : null,
      });
    }
    // By authorization (a flip's copy is the same purchase); a pointer counts only for an export
    // that finished (a finish cut short leaves some), else the one before it.
    const last = await deps.store.exports.resolve(
      await deps.store.exports.lastOf(picked.map((x) => x.t.authorizationId)),
      done,
    );
    // Each transaction's documents: one list each, the page's lists in parallel.
    const allDocs = await Promise.all(
      picked.map(({ t }) => deps.store.documents.byTransaction(t.userOid, t.authorizationId)),
    );
    for (const [i, { t, request, account }] of picked.entries()) {
      let u = users.get(t.userOid);
      if (u === undefined) {
        u = await deps.store.users.get(t.userOid);
        keepBounded(users, t.userOid, u, CACHE);
      }
      const name = u ? `${u.fname} ${u.lname}`.trim() : t.userOid;
      const docs = allDocs[i].filter((d) => d.documentType === "receipt" && !d.archive);
      const booked = isoDay(bookedAt(t)!);
      const paths = receiptPaths(t, booked, name, docs, p.layout);
      const entry: ExportEntry = {
        tx: t,
        request,
        holder: { name, email: u?.email ?? "" },
        account,
        receipts: docs.map((doc, j) => ({ doc, path: paths[j] })),
        last: last[i],
      };
      const { lines, stamp } = linesOf(entry, refs.ctx);
      if (p.onlyNew && lines[0].state === "exported") continue;
      yield { entry, lines, stamp };
    }
    page = [];
  };
  const it = kv.list<string>({ start: [...BOOKED, start], end: [...BOOKED, end] }, {
    batchSize: PAGE,
  });
  for await (const e of it) {
    page.push({ at: e.key[1] as number, oid: e.key[2] as string, userOid: e.value });
    if (page.length === PAGE) yield* flush();
  }
  if (page.length) yield* flush();
}

/** kv.getMany over any number of keys: ten per read (its limit), the reads in parallel. */
async function manyOf<T>(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<T>[]> {
  const parts: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
  for (let i = 0; i < keys.length; i += 10) parts.push(kv.getMany<T[]>(keys.slice(i, i + 10)));
  return (await Promise.all(parts)).flat();
}
