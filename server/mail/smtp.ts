import nodemailer from "nodemailer";
import { DeliveryError, type Outgoing } from "../messages/types.ts";
import type { MailTransport } from "./transport.ts";

export interface SmtpOptions {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  /** Refuse to send in clear when the server does not offer STARTTLS. */
  requireTls?: boolean;
  user?: string;
  pass?: string;
  from: string;
  /** PEM certificate(s) to trust besides the system roots (a self-signed or private CA). */
  ca?: string;
  /** Connection, greeting and socket inactivity timeouts: a hung server cannot stall us. */
  timeoutMs?: number;
  /** Connections kept open and reused, at most. */
  maxConnections?: number;
}

/** Real mail through any SMTP server (STARTTLS when offered, or implicit TLS with secure). */
export class SmtpTransport implements MailTransport {
  readonly channel = "email" as const;
  readonly kind = "smtp" as const;
  private transporter;

  constructor(private opts: SmtpOptions) {
    const timeout = opts.timeoutMs ?? 15_000;
    this.transporter = nodemailer.createTransport({
      pool: true,
      maxConnections: opts.maxConnections ?? 3,
      maxMessages: 100,
      host: opts.host,
      port: opts.port,
      secure: opts.secure,
      requireTLS: opts.requireTls ?? false,
      auth: opts.user ? { user: opts.user, pass: opts.pass ?? "" } : undefined,
      tls: opts.ca ? { ca: [opts.ca] } : undefined,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout * 2,
      dnsTimeout: timeout,
    });
  }

  describe(): string {
    const tls = this.opts.secure
      ? "implicit TLS"
      : this.opts.requireTls
      ? "STARTTLS required"
      : "STARTTLS when offered";
    const ca = this.opts.ca ? ", custom CA" : "";
    return `smtp ${this.opts.host}:${this.opts.port} (${tls}${ca})`;
  }

  async send(msg: Outgoing): Promise<void> {
    try {
      await this.transporter.sendMail({
        from: this.opts.from,
        to: msg.to,
        subject: msg.subject ?? "",
        text: msg.text,
        html: msg.html,
        // Stable across retries: a copy accepted after an ambiguous failure is recognisable.
        messageId: msg.messageId,
      });
    } catch (err) {
      throw smtpError(err);
    }
  }

  close(): void {
    this.transporter.close();
  }
}

/**
 * SMTP reply codes 5xx are permanent (RFC 5321 §4.2.1): the message fails at once. 4xx,
 * refused connections, timeouts and TLS trouble are temporary: retried with backoff.
 */
export function smtpError(err: unknown): DeliveryError {
  const e = err as { message?: string; responseCode?: number; code?: string; errors?: unknown };
  // A refused connection to a name with several addresses is an AggregateError, no message.
  const parts = Array.isArray(e.errors)
    ? e.errors.map((x) => (x as Error)?.message ?? String(x))
    : [];
  const text = e.message || parts.join("; ") || String(err);
  const message = `${e.code ? `${e.code}: ` : ""}${text}`.slice(0, 500);
  const permanent = typeof e.responseCode === "number" && e.responseCode >= 500 &&
    e.responseCode < 600;
  return new DeliveryError(message, permanent);
}
