/**
 * The accounting export (docs/export.md): one call for the app's Export screen, the bearer API
 * (POST /bonita/export) and `deno task export-accounting`. It checks the request, records the
 * export, and answers one file that streams: a CSV, a DATEV Buchungsstapel, or a ZIP (made with
 * client-zip, which streams and writes ZIP64 past 4 GB) of the receipts and of the chosen
 * exports. The transactions an export carried count as exported once the file was read to
 * its end; a download broken off leaves the record "broken" and marks nothing.
 */
import { makeZip } from "client-zip";
import * as z from "zod";
import { isIsoDay } from "../../client/shared/dates.ts";
import { badRequest, forbidden, issuesText } from "../errors.ts";
import type { Deps } from "../domain/env.ts";
import { translate } from "../i18n.ts";
import { convert, termsFor } from "../issuer/fx.ts";
import type { FinanceScope } from "../domain/finance.ts";
import { blobsOf } from "../domain/documents.ts";
import type { ExportRecord } from "../store/exports.ts";
import { csvHead, csvRows, csvStyle } from "./csv.ts";
import { cp1252, DATEV_DEFAULTS, datevHead, datevRows, fiscalYearStart } from "./datev.ts";
import { DAY_MS, exportItems, rowContext, type SourceItem } from "./source.ts";

export const FORMATS = ["csv", "datev", "zip"] as const;
export type ExportFormat = typeof FORMATS[number];
/** A period covers at most this many days. */
export const MAX_DAYS = 366;

const day = z.string().refine(isIsoDay, "must be a date written YYYY-MM-DD");
export const ExportBody = z.strictObject({
  from: day,
  to: day,
  account: z.string().trim().min(1).max(100).nullish(),
  formats: z.array(z.enum(FORMATS)).min(1).max(3),
  onlyNew: z.boolean().default(false),
  layout: z.enum(["folders", "flat"]).default("folders"),
});
export type ExportInput = z.input<typeof ExportBody>;

/** Who exports: a finance user (their scope, language) or the operator's command line. */
export interface Exporter {
  oid: string | null;
  name: string;
  locale: string;
  scope: FinanceScope;
}

export interface ExportFile {
  id: string;
  name: string;
  type: string;
  body: ReadableStream<Uint8Array>;
}

/** Checks the request (400 with a message, 403 outside the person's accounts): nothing written. */
async function check(deps: Deps, who: Exporter, input: unknown) {
  const r = ExportBody.safeParse(input);
  if (!r.success) throw badRequest("invalid_export", issuesText(r.error));
  const p = r.data;
  const days = (Date.parse(p.to) - Date.parse(p.from)) / DAY_MS + 1;
  if (days < 1) {
    throw badRequest("period_reversed", `The period ends (${p.to}) before it starts (${p.from})`);
  }
  if (days > MAX_DAYS) {
    throw badRequest(
      "period_too_long",
      `A period covers at most ${MAX_DAYS} days (this one ${days})`,
    );
  }
  const meta = await deps.store.org.meta();
  const datev = { ...DATEV_DEFAULTS, ...meta?.settings.datev };
  const month = datev.fiscalYearStartMonth;
  if (
    p.formats.includes("datev") && fiscalYearStart(p.from, month) !== fiscalYearStart(p.to, month)
  ) {
    throw badRequest(
      "period_fiscal_years",
      "A DATEV Buchungsstapel holds one fiscal year: split the period",
    );
  }
  const accountOid = p.account ?? null;
  // Outside the person's accounts first: a limited finance user learns nothing of the others.
  if (accountOid && who.scope.accounts && !who.scope.accounts.has(accountOid)) {
    throw forbidden("not_your_account", "This account is not among the ones you may export");
  }
  if (accountOid && !(await deps.store.org.get("account", accountOid))) {
    throw badRequest("unknown_account", `No account ${accountOid}`);
  }
  return { p, accountOid, datev, currency: meta?.settings.defaultCurrency ?? "EUR" };
}

/** Starts an export: checked, recorded as running, answered as a stream. */
export async function exportAccounting(
  deps: Deps,
  who: Exporter,
  input: unknown,
): Promise<ExportFile> {
  const { p, accountOid, datev, currency } = await check(deps, who, input);
  await deps.store.transactions.backfillBooked();
  const tr = await translate(who.locale);
  const refs = await rowContext(deps, tr.locale);
  const id = crypto.randomUUID();
  const now = deps.now();
  const record: ExportRecord = {
    v: 1,
    id,
    byOid: who.oid,
    byName: who.name,
    at: now,
    from: p.from,
    to: p.to,
    accountOid,
    formats: [...new Set(p.formats)].sort(),
    onlyNew: p.onlyNew,
    state: "running",
    count: 0,
    finishedAt: null,
  };
  await deps.store.exports.start(record);

  const source = { from: p.from, to: p.to, accountOid, onlyNew: p.onlyNew, layout: p.layout };
  const style = csvStyle(tr.locale);
  const base = `qcard-${p.from}_${p.to}`;
  const datevName = `EXTF_Buchungsstapel_${p.from}_${p.to}.csv`;
  const rates = refs.ctx.rates;
  const inBase = (l: SourceItem["lines"][number]) => {
    const t = termsFor(rates, l.currency, currency);
    return Math.sign(l.gross) * convert(t, Math.abs(l.gross));
  };
  // The first pass over the period decides what the export carries: it records each
  // transaction (when a booking format is in it: receipts alone do not make it "exported") and
  // keeps their authorization ids, so the other files of a ZIP, read in later passes instead of
  // held, carry the same transactions. (The ids are ~40 bytes a transaction: 2 MB for 50,000.)
  const books = record.formats.includes("csv") || record.formats.includes("datev");
  let carried: Set<string> | null = null;
  async function* items(): AsyncGenerator<SourceItem> {
    const first = carried === null;
    const seen = carried ?? new Set<string>();
    carried = seen;
    let batch: { auth: string; stamp: string }[] = [];
    for await (const it of exportItems(deps, source, who.scope, refs)) {
      const auth = it.entry.tx.authorizationId;
      if (!first) {
        if (seen.has(auth)) yield it;
        continue;
      }
      seen.add(auth);
      if (books) {
        batch.push({ auth, stamp: it.stamp });
        if (batch.length === 500) {
          await deps.store.exports.addItems(id, batch);
          batch = [];
        }
      }
      yield it;
    }
    if (first && batch.length) await deps.store.exports.addItems(id, batch);
  }
  const enc = new TextEncoder();
  async function* csv(): AsyncGenerator<Uint8Array> {
    yield enc.encode(csvHead(style, tr));
    for await (const it of items()) yield enc.encode(csvRows(it.lines, style, tr));
  }
  async function* datevFile(): AsyncGenerator<Uint8Array> {
    yield cp1252(datevHead({
      settings: datev,
      from: p.from,
      to: p.to,
      currency,
      by: who.name,
      label: `QCard ${p.from.replaceAll("-", "")} ${p.to.replaceAll("-", "")}`,
      now,
    }));
    for await (const it of items()) {
      yield cp1252(datevRows(it.lines, { settings: datev, currency, inBase }));
    }
  }
  async function* receipts() {
    for await (const it of items()) {
      for (const f of it.entry.receipts) {
        yield {
          name: f.path,
          lastModified: new Date(f.doc.createdAt),
          size: f.doc.size,
          input: blobsOf(deps, f.doc).read(f.doc.blob),
        };
      }
    }
  }
  const only = record.formats.length === 1 ? record.formats[0] : null;
  let file: Omit<ExportFile, "body"> & {
    body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
  };
  if (only === "csv") {
    file = { id, name: `${base}.csv`, type: "text/csv; charset=utf-8", body: csv() };
  } else if (only === "datev") {
    file = { id, name: datevName, type: "text/csv; charset=windows-1252", body: datevFile() };
  } else {
    const entries = async function* () {
      if (record.formats.includes("csv")) {
        yield { name: `${base}.csv`, lastModified: new Date(now), input: csv() };
      }
      if (record.formats.includes("datev")) {
        yield { name: datevName, lastModified: new Date(now), input: datevFile() };
      }
      if (record.formats.includes("zip")) yield* receipts();
    };
    file = { id, name: `${base}.zip`, type: "application/zip", body: makeZip(entries()) };
  }
  return { ...file, body: guarded(deps, id, file.body) };
}

/**
 * The file's stream: read to its end, the export is finished (its transactions count as
 * exported); broken off (cancelled, an error), it is abandoned.
 */
function guarded(
  deps: Deps,
  id: string,
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const it = (body instanceof ReadableStream ? body.values() : body)[Symbol.asyncIterator]();
  // closed: finished or abandoned; finishing: the finish is under way (a cancel then changes
  // nothing: the file was produced to its end).
  let closed = false;
  let finishing = false;
  const abandon = async () => {
    if (closed || finishing) return;
    closed = true;
    await deps.store.exports.abandon(id, deps.now()).catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      try {
        const r = await it.next();
        if (r.done) {
          finishing = true;
          await deps.store.exports.finish(id, deps.now());
          closed = true;
          ctl.close();
        } else ctl.enqueue(r.value);
      } catch (e) {
        // A failed read or a failed finish: the export did not happen.
        finishing = false;
        await abandon();
        ctl.error(e);
      }
    },
    async cancel() {
      try {
        await it.return?.();
      } finally {
        await abandon();
      }
    },
  }, { highWaterMark: 4 });
}
