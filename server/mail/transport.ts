/** A message QCard sends (activation emails for now; PIN emails for 3-D Secure later). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Where mail goes: the demo outbox or a real SMTP server, chosen by configuration. */
export interface MailTransport {
  readonly kind: "outbox" | "smtp";
  send(msg: MailMessage): Promise<void>;
}
