import type { MessageQueue } from "../messages/queue.ts";
import type { Channel, Message, MessageState, Outgoing, Transport } from "../messages/types.ts";

/**
 * The embedded demo transport, for email or SMS: the message record in KV is the stored
 * copy (listed at GET /_outbox), so delivering is marking it delivered, and printing it to
 * the console when a log is given (development). It hands out login codes, so config
 * refuses it in production.
 */
export class OutboxTransport implements Transport {
  readonly kind = "outbox" as const;
  constructor(readonly channel: Channel, private log?: (line: string) => void) {}

  describe(): string {
    return "outbox (listed at /_outbox)";
  }

  send(msg: Outgoing): Promise<void> {
    const head = msg.channel === "sms" ? `SMS to ${msg.to}` : `to ${msg.to}: ${msg.subject ?? ""}`;
    this.log?.(`[outbox] ${head}\n${indent(msg.text)}`);
    return Promise.resolve();
  }

  close(): void {}
}

/** One outbox entry as /_outbox shows it (the fields of the first outbox, plus delivery). */
export interface StoredMail {
  id: string;
  channel: Channel;
  to: string;
  subject: string;
  text: string;
  /** When it was queued (ISO). */
  sentAt: string;
  state: MessageState;
  attempts: number;
  lastError: string | null;
  deliveredAt: string | null;
  expiresAt: string | null;
}

/**
 * The dev outbox: messages of the channels whose transport is the outbox, newest first,
 * whatever their delivery state (a code is readable as soon as it is queued).
 */
export class OutboxView {
  constructor(private queue: MessageQueue, readonly channels: Channel[]) {}

  async list(opts: { to?: string; limit?: number } = {}): Promise<StoredMail[]> {
    const ms = await this.queue.list({
      to: opts.to,
      limit: opts.limit,
      filter: (m) => this.channels.includes(m.channel),
    });
    return ms.map(storedMail);
  }

  /** Queues an email (or SMS, with `channel`) on its own; tests and demos use it. */
  async send(m: { to: string; subject?: string; text: string; channel?: Channel }) {
    return await this.queue.send({ channel: "email", ...m });
  }
}

function storedMail(m: Message): StoredMail {
  const iso = (t?: number) => (t === undefined ? null : new Date(t).toISOString());
  return {
    id: m.id,
    channel: m.channel,
    to: m.to,
    subject: m.subject ?? "",
    text: m.text,
    sentAt: new Date(m.createdAt).toISOString(),
    state: m.state,
    attempts: m.attempts,
    lastError: m.lastError ?? null,
    deliveredAt: iso(m.deliveredAt),
    expiresAt: iso(m.expiresAt),
  };
}

function indent(s: string): string {
  return s.split("\n").map((l) => `    ${l}`).join("\n");
}
