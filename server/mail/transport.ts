import type { Transport } from "../messages/types.ts";

/**
 * Where email goes: the demo outbox or a real SMTP server, chosen by configuration. Never
 * called by the domain directly: messages are queued through `deps.messages` (the durable outbox,
 * docs/messages.md) and the delivery worker hands them to the transport.
 */
export interface MailTransport extends Transport {
  readonly channel: "email";
  readonly kind: "outbox" | "smtp";
}
