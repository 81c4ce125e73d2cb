/**
 * The change channel (docs/app.md, "One change channel"): what changed for whom, written in the
 * same atomic operation as the change itself, so there is no change without its record and no
 * record without its change.
 *
 * A channel is a user (`u:<oid>`: their requests, cards, transactions, receipts, their own
 * comments) or a team (`t:<oid>`: the approvals one of its levels decides — one write however
 * many approvers the team has, and a mover reads the new team's channel from their next
 * connection). Per channel:
 * - `["chgv", channel]`: written by every change of the channel; its versionstamp is the
 *   channel's version, and the key a stream watches (`kv.watch`). Every change of a channel
 *   writes this one key, so on PostgreSQL its changes commit one after another and their
 *   versionstamps grow in commit order (a reader never skips one committed late).
 * - `["chg", channel, at, n]`: one record per change, `{ k: kind, id }`, kept {@link KEEP_MS}.
 *   Keyed by its wall-clock time so "since" reads only the tail; filtered by versionstamp, the
 *   order that counts (clocks of several processes may differ by up to {@link SKEW_MS}).
 */
export const CHANGE_KINDS = [
  "request",
  "approval",
  "transaction",
  "receipt",
  "comment",
] as const;
export type ChangeKind = typeof CHANGE_KINDS[number];

/** One change as the app receives it: what (kind, id) and the channel's version after it. */
export interface Change {
  kind: ChangeKind;
  id: string;
  version: string;
}

/** Where a reader is in each channel: its last version and the time of its last record. */
export type Cursor = Record<string, { v: string; at: number }>;

/** How long change records are kept: a phone away longer reads its lists whole. */
export const KEEP_MS = 14 * 86_400_000;
/** How far apart the clocks of processes writing one store may be. */
export const SKEW_MS = 5 * 60_000;
/** Changes answered at most per channel and read; more means "read your lists whole". */
export const MAX_CHANGES = 200;

export const userChannel = (oid: string) => `u:${oid}`;
export const teamChannel = (oid: string) => `t:${oid}`;

let counter = 0;

/** Adds "`kind` `id` changed" for each channel to `op` (the change's own operation). */
export function noteChange(
  op: Deno.AtomicOperation,
  channels: Iterable<string>,
  kind: ChangeKind,
  id: string,
): Deno.AtomicOperation {
  const at = Date.now();
  for (const ch of new Set(channels)) {
    counter = (counter + 1) % 1_000_000;
    const n = `${crypto.randomUUID().slice(0, 8)}${counter}`;
    op.set(["chg", ch, at, n], { k: kind, id }, { expireIn: KEEP_MS }).set(["chgv", ch], at);
  }
  return op;
}

export class ChangeRepo {
  constructor(private kv: Deno.Kv) {}

  /** The keys a reader of these channels watches. */
  versionKeys(channels: readonly string[]): Deno.KvKey[] {
    return channels.map((ch) => ["chgv", ch]);
  }

  /** Each channel's version now (versionstamp of its last change; "" when it has none). */
  async versions(channels: readonly string[]): Promise<Cursor> {
    const out: Cursor = {};
    for (let i = 0; i < channels.length; i += 10) {
      const part = channels.slice(i, i + 10);
      const es = await this.kv.getMany<number[]>(this.versionKeys(part));
      es.forEach((e, j) => out[part[j]] = { v: e.versionstamp ?? "", at: e.value ?? 0 });
    }
    return out;
  }

  /**
   * The changes of `channels` after `cursor`, oldest first, and the cursor after them. A channel
   * the cursor does not name starts now (the reader has just read its lists whole). `full`: more
   * than {@link MAX_CHANGES} in one channel, or a cursor older than the records kept.
   */
  async since(
    channels: readonly string[],
    cursor: Cursor,
    now = Date.now(),
  ): Promise<{ changes: Change[]; cursor: Cursor; full: boolean }> {
    const current = await this.versions(channels);
    const next: Cursor = {};
    const changes: Change[] = [];
    let full = false;
    for (const ch of channels) {
      const from = cursor[ch];
      const to = current[ch];
      if (!from) {
        next[ch] = to;
        continue;
      }
      if (to.v === "" || to.v <= from.v) {
        next[ch] = from;
        continue;
      }
      if (from.at && from.at < now - KEEP_MS + SKEW_MS) full = true;
      let last = from;
      let n = 0;
      const it = this.kv.list<{ k: ChangeKind; id: string }>({
        start: ["chg", ch, Math.max(0, from.at - SKEW_MS)],
        end: ["chg", ch, Number.MAX_SAFE_INTEGER],
      });
      for await (const e of it) {
        if (e.versionstamp <= from.v) continue;
        if (++n > MAX_CHANGES) {
          full = true;
          break;
        }
        changes.push({ kind: e.value.k, id: e.value.id, version: e.versionstamp });
        const at = Math.max(last.at, e.key[2] as number);
        last = { v: e.versionstamp > last.v ? e.versionstamp : last.v, at };
      }
      // Past the records read: the channel's own version (a write that left no record in
      // range cannot exist, but the cursor never goes back).
      next[ch] = full ? to : (last.v >= to.v ? last : { v: to.v, at: Math.max(last.at, to.at) });
    }
    changes.sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
    return { changes, cursor: next, full };
  }
}

/** A cursor as text (`channel~version~at`, comma separated): the stream's event id. */
export function cursorText(c: Cursor): string {
  return Object.entries(c).map(([ch, { v, at }]) => `${ch}~${v}~${at}`).join(",");
}

/** The cursor a client sent back; parts that do not read as one are dropped. */
export function parseCursor(text: string | undefined | null): Cursor {
  const out: Cursor = {};
  if (!text) return out;
  for (const part of text.split(",").slice(0, 64)) {
    const m = /^([ut]:[A-Za-z0-9_.-]{1,64})~([0-9a-f]{0,32})~(\d{1,16})$/.exec(part);
    if (m) out[m[1]] = { v: m[2], at: Number(m[3]) };
  }
  return out;
}
