/**
 * Messages QCard sends (activation codes, lost-activation results, 3-D Secure PINs by email or
 * SMS): the record kept in KV from the moment the state change that causes it commits until
 * it is delivered, expired, discarded or failed (a message is never lost, docs/messages.md).
 */

export type Channel = "email" | "sms";

/**
 * pending → sending → delivered, or back to pending (a retry after a backoff), or failed
 * (permanent refusal or last attempt). A pending message past its content lifetime becomes
 * expired instead of being sent late; one replaced by a newer message of the same
 * `replaceKey` becomes superseded; an operator may discard a pending or failed one.
 */
export type MessageState =
  | "pending"
  | "sending"
  | "delivered"
  | "failed"
  | "expired"
  | "superseded"
  | "discarded";

/** States that still need someone's attention: indexed for the worker, operators, /healthz. */
export const OPEN_STATES = ["pending", "sending", "failed"] as const;
export type OpenState = typeof OPEN_STATES[number];

/** What a caller queues. */
export interface MessageInput {
  channel: Channel;
  /** Email address or phone number (E.164 for SMS providers). */
  to: string;
  subject?: string;
  text: string;
  html?: string;
  /** What it is, for operators' listings ("activation", "3ds-pin"…); never its content. */
  purpose?: string;
  /** Content lifetime (epoch ms): a code past it is marked expired, never sent late. */
  expiresAt?: number;
  /**
   * A newer message with the same key replaces this one while it is unsent (e.g.
   * `activation:<userOid>`: a new code revokes the previous one, so its mail is not sent).
   */
  replaceKey?: string;
}

export interface Message extends MessageInput {
  /** Time-ordered and unique; also the Message-ID's left part (`<id@host>`). */
  id: string;
  state: MessageState;
  createdAt: number;
  updatedAt: number;
  /** Delivery attempts made so far (an operator's retry starts the count again). */
  attempts: number;
  /** When the next attempt is due (epoch ms); a pending message overdue by far lost its item. */
  nextAttemptAt: number;
  /** While sending: after this the attempt is presumed dead (crash) and may be taken over. */
  leaseUntil?: number;
  lastAttemptAt?: number;
  lastError?: string;
  deliveredAt?: number;
  /** The body was dropped after delivery or expiry (codes are not kept in clear). */
  scrubbed?: boolean;
  /** Written with its `message.send` job (server/jobs/); absent on messages queued before. */
  hasJob?: true;
}

/** What a transport is handed: the record's content plus its stable Message-ID. */
export interface Outgoing {
  id: string;
  messageId: string;
  channel: Channel;
  to: string;
  subject?: string;
  text: string;
  html?: string;
}

/**
 * One way out for one channel. `send` resolves once the far end accepted the message and
 * throws a DeliveryError (or anything: counted as temporary) otherwise.
 */
export interface Transport {
  readonly channel: Channel;
  readonly kind: "outbox" | "smtp" | "http" | "none";
  /** A line for the start-up banner: where messages go (no secrets). */
  describe(): string;
  send(msg: Outgoing): Promise<void>;
  /** Releases pooled connections (worker stop). */
  close(): Promise<void> | void;
}

/** A failed attempt: `permanent` means retrying cannot help (SMTP 5xx, HTTP 4xx). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    /** The far end asked for this much patience (HTTP Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "DeliveryError";
  }
}
