import { type Message, type MessageState, OPEN_STATES, type OpenState } from "./types.ts";

/**
 * KV layout of messages:
 *   ["msg", id]               the record (content included until delivered or expired)
 *   ["msg_open", state, id]   index of pending, sending and failed ones, oldest first
 *   ["msg_to", to, id]        index by recipient (the dev outbox's ?to=)
 *   ["msg_latest", key]       the newest message of a replaceKey (older unsent ones are dropped)
 * Delivered, expired and discarded records (and their recipient index) expire after the
 * retention period; failed ones are kept until an operator retries or discards them.
 */
export interface OpenSummary {
  channel: Message["channel"];
  createdAt: number;
  nextAttemptAt: number;
  leaseUntil?: number;
}

const isOpen = (s: MessageState): s is OpenState => (OPEN_STATES as readonly string[]).includes(s);

export class MessageRepo {
  constructor(private kv: Deno.Kv, private retentionMs: number) {}

  async get(id: string): Promise<Deno.KvEntryMaybe<Message>> {
    return await this.kv.get<Message>(["msg", id]);
  }

  /**
   * Adds the mutations that move a message from `prev` (null: new) to `next` to `op`.
   * The caller adds the version check of `prev` and commits.
   */
  write(op: Deno.AtomicOperation, prev: Message | null, next: Message): Deno.AtomicOperation {
    const final = !isOpen(next.state);
    const opts = final ? { expireIn: this.retentionMs } : undefined;
    op.set(["msg", next.id], next, opts);
    if (prev && isOpen(prev.state) && prev.state !== next.state) {
      op.delete(["msg_open", prev.state, prev.id]);
    }
    if (isOpen(next.state)) {
      const summary: OpenSummary = {
        channel: next.channel,
        createdAt: next.createdAt,
        nextAttemptAt: next.nextAttemptAt,
        leaseUntil: next.leaseUntil,
      };
      op.set(["msg_open", next.state, next.id], summary);
    }
    if (!prev || final) op.set(["msg_to", next.to, next.id], next.channel, opts);
    return op;
  }

  /** Marks `id` the newest message of `key` (in the op that adds it). */
  setLatest(op: Deno.AtomicOperation, key: string, id: string) {
    op.set(["msg_latest", key], id, { expireIn: this.retentionMs });
  }

  /** The newest message id of a replaceKey, if known. */
  async latest(key: string): Promise<string | null> {
    return (await this.kv.get<string>(["msg_latest", key])).value;
  }

  /** Open messages in one state, oldest first. */
  async *open(state: OpenState): AsyncGenerator<{ id: string; summary: OpenSummary }> {
    const it = this.kv.list<OpenSummary>({ prefix: ["msg_open", state] }, { batchSize: 500 });
    for await (const e of it) yield { id: e.key[2] as string, summary: e.value };
  }

  /** How many messages are in each open state, and the oldest not yet delivered. */
  async counts(): Promise<{ pending: number; sending: number; failed: number; oldest?: number }> {
    const out = { pending: 0, sending: 0, failed: 0, oldest: undefined as number | undefined };
    // One range over the three states (one read while they fit in a batch).
    const it = this.kv.list<OpenSummary>({ prefix: ["msg_open"] }, { batchSize: 1000 });
    for await (const e of it) {
      const state = e.key[1] as OpenState;
      out[state]++;
      const at = e.value.createdAt;
      if (state !== "failed" && (out.oldest === undefined || at < out.oldest)) out.oldest = at;
    }
    return out;
  }

  /** Records newest first, optionally only those to one recipient. */
  async *newest(to?: string): AsyncGenerator<Message> {
    if (!to) {
      for await (const e of this.kv.list<Message>({ prefix: ["msg"] }, { reverse: true })) {
        yield e.value;
      }
      return;
    }
    const ids: string[] = [];
    const flush = async function* (kv: Deno.Kv) {
      const got = await kv.getMany<Message[]>(ids.map((id) => ["msg", id]));
      ids.length = 0;
      for (const e of got) if (e.value) yield e.value;
    };
    for await (const e of this.kv.list({ prefix: ["msg_to", to] }, { reverse: true })) {
      ids.push(e.key[2] as string);
      if (ids.length === 10) yield* flush(this.kv);
    }
    if (ids.length) yield* flush(this.kv);
  }
}
