/**
 * The accounting exports' record (docs/export.md): who exported which period in which
 * formats, and which transactions each export carried with the stamp of what it said of them,
 * so the next export marks a transaction exported before, or changed since.
 *
 *   ["export", id]                     ExportRecord
 *   ["export_item", id, txOid]         the stamp of the transaction's rows in that export
 *   ["export_last", txOid]             LastExport: the latest finished export that carried it
 *
 * Items are written while the export streams, under an export still "running"; the last-export
 * pointers only when it finished, and a pointer counts only while its export's record says
 * "done" (source.ts), so an export broken off — even during its finish — marks nothing.
 */
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

  /** Where each transaction was exported last, in reads of ten. */
  async lastOf(txOids: string[]): Promise<(LastExport | null)[]> {
    const out: (LastExport | null)[] = [];
    for (let i = 0; i < txOids.length; i += 10) {
      const keys = txOids.slice(i, i + 10).map((o) => ["export_last", o]);
      for (const e of await this.kv.getMany<LastExport[]>(keys)) out.push(e.value ?? null);
    }
    return out;
  }

  /** Records transactions as carried by a running export. */
  async addItems(id: string, items: { oid: string; stamp: string }[]): Promise<void> {
    for (let i = 0; i < items.length; i += WRITES) {
      const op = this.kv.atomic();
      for (const it of items.slice(i, i + WRITES)) op.set(["export_item", id, it.oid], it.stamp);
      await op.commit();
    }
  }

  /** The export finished: its transactions now count as exported (pointers in writes of 500). */
  async finish(id: string, at: number): Promise<ExportRecord | null> {
    let count = 0;
    let op = this.kv.atomic();
    let inOp = 0;
    for await (const e of this.kv.list<string>({ prefix: ["export_item", id] })) {
      const oid = e.key[2] as string;
      op.set(["export_last", oid], { exportId: id, at, stamp: e.value } satisfies LastExport);
      count++;
      if (++inOp === WRITES) {
        await op.commit();
        op = this.kv.atomic();
        inOp = 0;
      }
    }
    await op.commit();
    return await this.#close(id, { state: "done", count, finishedAt: at });
  }

  /** An export broken off (the download stopped, an error): its items go, its record says so. */
  async abandon(id: string, at: number): Promise<void> {
    let op = this.kv.atomic();
    let inOp = 0;
    for await (const e of this.kv.list({ prefix: ["export_item", id] })) {
      op.delete(e.key);
      if (++inOp === WRITES) {
        await op.commit();
        op = this.kv.atomic();
        inOp = 0;
      }
    }
    await op.commit();
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
