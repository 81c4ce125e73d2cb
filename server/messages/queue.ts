import { MessageRepo } from "./store.ts";
import type { Message, MessageInput } from "./types.ts";
import { addJob, newTimeOrderedId } from "../jobs/jobs.ts";

/** The jobs wing's kind that delivers one message (worker.ts runs it). */
export const MESSAGE_SEND = "message.send";

export interface QueueOptions {
  /** Delivered, expired and discarded records are kept this long (ms), then KV drops them. */
  retentionMs: number;
  /** The clock of record timestamps and content lifetimes (deps.now, faked by tests). */
  now: () => number;
}

/** Figures for monitoring (GET /healthz): counts and an age, never content or addresses. */
export interface MessageStats {
  pending: number;
  sending: number;
  failed: number;
  oldestPendingAgeSeconds: number | null;
}

/** Why an operator's retry or discard was refused. */
export class QueueError extends Error {
  override name = "QueueError";
}

/**
 * The transactional outbox. `add` puts a message into the caller's atomic operation,
 * together with the state change that causes it: both commit or neither does. The record
 * is its own job: pending, with the time its next attempt is due (no KV queue: today's
 * Deno Deploy and KV Connect have none). Delivery is the worker's business: it is woken
 * right after the commit in this process, and sweeps the pending index periodically for
 * the rest (other processes' messages, retries whose process stopped).
 */
export class MessageQueue {
  readonly repo: MessageRepo;

  constructor(readonly kv: Deno.Kv, private opts: QueueOptions) {
    this.repo = new MessageRepo(kv, opts.retentionMs);
  }

  /**
   * Adds the message record and its queue item to `op` and returns the message id. Nothing
   * is written until the caller commits `op`. `delayMs` defers the first attempt.
   */
  add(op: Deno.AtomicOperation, input: MessageInput, opts: { delayMs?: number } = {}): string {
    const now = this.opts.now();
    const id = newTimeOrderedId();
    const to = input.channel === "email" ? input.to.trim().toLowerCase() : input.to.trim();
    const msg: Message = {
      ...input,
      to,
      id,
      state: "pending",
      createdAt: now,
      updatedAt: now,
      attempts: 0,
      nextAttemptAt: now + (opts.delayMs ?? 0),
      hasJob: true,
    };
    this.repo.write(op, null, msg);
    if (input.replaceKey) this.repo.setLatest(op, input.replaceKey, id);
    // Its delivery, a job of the jobs wing written in the same operation (worker.ts).
    addJob(op, now, MESSAGE_SEND, { id }, { delayMs: opts.delayMs });
    return id;
  }

  /** Queues one message on its own (nothing else to commit with it). */
  async send(input: MessageInput, opts: { delayMs?: number } = {}): Promise<string> {
    const op = this.kv.atomic();
    const id = this.add(op, input, opts);
    const r = await op.commit();
    if (!r.ok) throw new Error("could not queue the message");
    return id;
  }

  async get(id: string): Promise<Message | null> {
    return (await this.repo.get(id)).value;
  }

  /** Messages newest first (the dev outbox), optionally to one recipient. */
  async list(opts: { to?: string; limit?: number; filter?: (m: Message) => boolean } = {}) {
    const out: Message[] = [];
    const to = opts.to?.trim();
    const limit = opts.limit ?? 200;
    if (limit <= 0) return out;
    for (const key of to ? new Set([to, to.toLowerCase()]) : [undefined]) {
      for await (const m of this.repo.newest(key)) {
        if (opts.filter && !opts.filter(m)) continue;
        out.push(m);
        if (out.length >= limit) break;
      }
    }
    return out.sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, limit);
  }

  /** Pending, sending and failed messages, oldest first (the operators' listing). */
  async open(): Promise<Message[]> {
    const ids: string[] = [];
    for (const state of ["pending", "sending", "failed"] as const) {
      for await (const { id } of this.repo.open(state)) ids.push(id);
    }
    const out: Message[] = [];
    for (let i = 0; i < ids.length; i += 10) {
      const got = await this.kv.getMany<Message[]>(ids.slice(i, i + 10).map((id) => ["msg", id]));
      for (const e of got) if (e.value) out.push(e.value);
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async stats(): Promise<MessageStats> {
    const c = await this.repo.counts();
    const now = this.opts.now();
    return {
      pending: c.pending,
      sending: c.sending,
      failed: c.failed,
      oldestPendingAgeSeconds: c.oldest === undefined
        ? null
        : Math.max(0, Math.round((now - c.oldest) / 1000)),
    };
  }

  /**
   * Operator: send a failed (or waiting) message again now, with a fresh count of attempts.
   * A worker in this process is woken; one in another process (`deno task outbox` beside a
   * running server) finds it at its next sweep.
   */
  async retry(id: string): Promise<Message> {
    return await this.change(id, ["failed", "pending"], (m, now) => ({
      ...m,
      state: "pending",
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: undefined,
    }), true);
  }

  /** Operator: give up on a pending or failed message; its content is dropped. */
  async discard(id: string): Promise<Message> {
    return await this.change(id, ["failed", "pending"], (m) => ({
      ...m,
      state: "discarded",
      text: "",
      html: undefined,
      scrubbed: true,
      leaseUntil: undefined,
    }), false);
  }

  private async change(
    id: string,
    from: Message["state"][],
    next: (m: Message, now: number) => Message,
    requeue: boolean,
  ): Promise<Message> {
    for (let i = 0; i < 5; i++) {
      const e = await this.repo.get(id);
      if (!e.value) throw new QueueError(`no message ${id}`);
      if (!from.includes(e.value.state)) {
        throw new QueueError(`message ${id} is ${e.value.state}, not ${from.join(" or ")}`);
      }
      const now = this.opts.now();
      const m = { ...next(e.value, now), updatedAt: now };
      const op = this.repo.write(this.kv.atomic().check(e), e.value, m);
      // A message sent again needs a job again (its last one ended with the failure).
      if (requeue) addJob(op, now, MESSAGE_SEND, { id });
      if ((await op.commit()).ok) return m;
    }
    throw new QueueError(`message ${id} kept changing, try again`);
  }
}
