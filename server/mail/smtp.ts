import nodemailer from "nodemailer";
import type { MailMessage, MailTransport } from "./transport.ts";

export interface SmtpOptions {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  pass?: string;
  from: string;
}

/** Real mail through any SMTP server (STARTTLS when offered, or implicit TLS with secure). */
export class SmtpTransport implements MailTransport {
  readonly kind = "smtp" as const;
  private transporter;

  constructor(private opts: SmtpOptions) {
    this.transporter = nodemailer.createTransport({
      host: opts.host,
      port: opts.port,
      secure: opts.secure,
      auth: opts.user ? { user: opts.user, pass: opts.pass ?? "" } : undefined,
    });
  }

  async send(msg: MailMessage): Promise<void> {
    await this.transporter.sendMail({ from: this.opts.from, ...msg });
  }
}
