import type { MailMessage, MailTransport } from "./transport.ts";

export interface StoredMail extends MailMessage {
  id: string;
  sentAt: string;
}

/**
 * The embedded demo transport: keeps every message in KV, prints it to the console and lets
 * a person read it at GET /_outbox. It hands out login codes, so config refuses it in production.
 */
export class OutboxTransport implements MailTransport {
  readonly kind = "outbox" as const;
  constructor(private kv: Deno.Kv, private log: (line: string) => void = console.log) {}

  async send(msg: MailMessage): Promise<void> {
    const now = Date.now();
    // Newest first when listed: key by inverted time, then a random tail for uniqueness.
    const id = `${(Number.MAX_SAFE_INTEGER - now).toString().padStart(16, "0")}-${
      crypto.randomUUID().slice(0, 8)
    }`;
    const stored: StoredMail = { ...msg, id, sentAt: new Date(now).toISOString() };
    await this.kv.set(["outbox", id], stored);
    this.log(`[outbox] to ${msg.to}: ${msg.subject}\n${indent(msg.text)}`);
  }

  /** Messages newest first, optionally only those to one address. */
  async list(opts: { to?: string; limit?: number } = {}): Promise<StoredMail[]> {
    const out: StoredMail[] = [];
    const to = opts.to?.trim().toLowerCase();
    for await (const e of this.kv.list<StoredMail>({ prefix: ["outbox"] })) {
      if (to && e.value.to !== to) continue;
      out.push(e.value);
      if (out.length >= (opts.limit ?? 200)) break;
    }
    return out;
  }
}

function indent(s: string): string {
  return s.split("\n").map((l) => `    ${l}`).join("\n");
}
