/**
 * The accounting exports' record (docs/export.md): who exported which period in which
 * formats, and which transactions each export carried with the stamp of what it said of them,
 * so the next export marks a transaction exported before, or changed since.
 *
 *   ["export", id]                     ExportRecord
 *   ["export_item", id, auth]          the stamp of the transaction's rows in that export
 *   ["export_last", auth]              LastExport: the latest export that carried it
 *
 * A transaction is named by its issuer authorization (`auth`), which a flip keeps: the flip's
 * copy (a new oid on another expense) is the same purchase, exported before, changed since.
 * Items are written while the export streams, under an export still "running"; the last-export
 * pointers only when it finished, and a pointer counts only while its export's record says
 * "done" (source.ts), so an export broken off — even during its finish — marks nothing.
 */
import { writeInBatches } from "./kv.ts";

export interface ExportRecord {
  v: 1;
  id: string;
  /** The finance user, or null for the operator's command line. */
  byOid: string | null;
  byName: string;
  at: number;
  /** The period, inclusive, as ISO dates (UTC days of capture). */
  from: string;
  to: string;
  accountOid: string | null;
  formats: string[];
  onlyNew: boolean;
  state: "running" | "done" | "broken";
  /** Transactions in it (known when done). */
  count: number;
  finishedAt: number | null;
}

export interface LastExport {
  exportId: string;
  at: number;
  stamp: string;
  /** The pointer this one replaced: what counts if this export's finish was cut short. */
  prev?: Omit<LastExport, "prev"> | null;
}

const WRITES = 500;

export class ExportRepo {
  constructor(private kv: Deno.Kv) {}

  async get(id: string): Promise<ExportRecord | null> {
    return (await this.kv.get<ExportRecord>(["export", id])).value;
  }

  /** The newest exports first. */
  async recent(limit = 20): Promise<ExportRecord[]> {
    const out: ExportRecord[] = [];
    for await (const e of this.kv.list<ExportRecord>({ prefix: ["export"] })) out.push(e.value);
    return out.sort((a, b) => b.at - a.at).slice(0, limit);
  }

  async start(r: ExportRecord): Promise<void> {
    await this.kv.set(["export", r.id], r);
  }

  /** Where each transaction (by authorization id) was exported last, in reads of ten. */
  async lastOf(auths: string[]): Promise<(LastExport | null)[]> {
    const out: (LastExport | null)[] = [];
    for (let i = 0; i < auths.length; i += 10) {
      const keys = auths.slice(i, i + 10).map((a) => ["export_last", a]);
      for (const e of await this.kv.getMany<LastExport[]>(keys)) out.push(e.value ?? null);
    }
    return out;
  }

  /** Records transactions (by authorization id) as carried by a running export. */
  async addItems(id: string, items: { auth: string; stamp: string }[]): Promise<void> {
    await writeInBatches(this.kv, items, (op, it) => {
      op.set(["export_item", id, it.auth], it.stamp);
    }, WRITES);
  }

  /**
   * The export finished: its transactions now count as exported. Each pointer keeps the one it
   * replaces, and the record says "done" last: a finish cut short leaves pointers to an export
   * that is not done, and the ones before them count (source.ts).
   */
  async finish(id: string, at: number): Promise<ExportRecord | null> {
    let count = 0;
    let page: [string, string][] = [];
    const done = new Map<string, boolean>();
    const flush = async () => {
      const prev = await this.resolve(await this.lastOf(page.map(([auth]) => auth)), done);
      const op = this.kv.atomic();
      page.forEach(([auth, stamp], i) => {
        const p = prev[i];
        const kept = p && p.exportId !== id ? p : null;
        op.set(["export_last", auth], { exportId: id, at, stamp, prev: kept } satisfies LastExport);
      });
      await op.commit();
      page = [];
    };
    for await (const e of this.kv.list<string>({ prefix: ["export_item", id] })) {
      page.push([e.key[2] as string, e.value]);
      count++;
      if (page.length === WRITES) await flush();
    }
    if (page.length) await flush();
    return await this.#close(id, { state: "done", count, finishedAt: at });
  }

  /**
   * The pointers that count: each one whose export is done, else the one it replaced if that
   * export is done, else none. `done` keeps what was read of the exports' states.
   */
  async resolve(
    pointers: (LastExport | null)[],
    done: Map<string, boolean>,
  ): Promise<(Omit<LastExport, "prev"> | null)[]> {
    const isDone = async (exportId: string) => {
      if (!done.has(exportId)) done.set(exportId, (await this.get(exportId))?.state === "done");
      return done.get(exportId)!;
    };
    const out: (Omit<LastExport, "prev"> | null)[] = [];
    for (const p of pointers) {
      if (p && await isDone(p.exportId)) {
        out.push({ exportId: p.exportId, at: p.at, stamp: p.stamp });
      } else if (p?.prev && await isDone(p.prev.exportId)) out.push(p.prev);
      else out.push(null);
    }
    return out;
  }

  /** An export broken off (the download stopped, an error): its items go, its record says so. */
  async abandon(id: string, at: number): Promise<void> {
    await writeInBatches(this.kv, this.kv.list({ prefix: ["export_item", id] }), (op, e) => {
      op.delete(e.key);
    }, WRITES);
    await this.#close(id, { state: "broken", count: 0, finishedAt: at });
  }

  async #close(id: string, change: Partial<ExportRecord>): Promise<ExportRecord | null> {
    const cur = await this.get(id);
    if (!cur) return null;
    const next = { ...cur, ...change };
    await this.kv.set(["export", id], next);
    return next;
  }
}
