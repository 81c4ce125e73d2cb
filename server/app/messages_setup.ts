import type { Config } from "../config.ts";
import { OutboxTransport, OutboxView } from "../mail/outbox.ts";
import { SmtpTransport } from "../mail/smtp.ts";
import type { MailTransport } from "../mail/transport.ts";
import { MessageQueue } from "../messages/queue.ts";
import { HttpSmsTransport, NoSmsTransport } from "../messages/sms_http.ts";
import type { Channel, Transport } from "../messages/types.ts";
import { DeliveryWorker } from "../messages/worker.ts";
import type { JobRunner } from "../jobs/runner.ts";

export interface Messaging {
  messages: MessageQueue;
  mail: MailTransport;
  sms: Transport;
  /** The dev outbox view, present when a channel's transport is the outbox. */
  outbox?: OutboxView;
}

/**
 * Builds the queue and the transports config names. Opens nothing and starts nothing
 * (connections are made by the worker, on its first message); reads SMTP_CA_FILE.
 */
export async function buildMessaging(
  config: Config,
  kv: Deno.Kv,
  now: () => number,
  log?: (line: string) => void,
): Promise<Messaging> {
  const messages = new MessageQueue(kv, {
    retentionMs: Math.round(config.MESSAGE_RETENTION_DAYS * 86_400_000),
    now,
  });
  // The outbox prints codes to the console only on a developer's machine.
  const print = config.APP_ENV === "development" ? (log ?? console.log) : undefined;
  let mail: MailTransport;
  if (config.MAIL_TRANSPORT === "smtp") {
    mail = new SmtpTransport({
      host: config.SMTP_HOST!,
      port: config.SMTP_PORT,
      secure: config.SMTP_SECURE,
      requireTls: config.SMTP_REQUIRE_TLS,
      user: config.SMTP_USER,
      pass: config.SMTP_PASS,
      from: config.MAIL_FROM,
      ca: await smtpCa(config),
      timeoutMs: config.SMTP_TIMEOUT_MS,
      maxConnections: Math.min(config.MESSAGE_CONCURRENCY, 5),
    });
  } else {
    mail = new OutboxTransport("email", print) as OutboxTransport & MailTransport;
  }
  const smsKind = config.SMS_TRANSPORT ??
    (config.MAIL_TRANSPORT === "outbox" ? "outbox" : undefined);
  const sms: Transport = smsKind === "http"
    ? new HttpSmsTransport({
      url: config.SMS_HTTP_URL!,
      authHeader: config.SMS_HTTP_AUTH_HEADER,
      token: config.SMS_HTTP_TOKEN,
      timeoutMs: Math.min(config.SMTP_TIMEOUT_MS, config.MESSAGE_SEND_TIMEOUT_MS),
    })
    : smsKind === "outbox"
    ? new OutboxTransport("sms", print)
    : new NoSmsTransport();
  const outboxChannels = [mail, sms].filter((t) => t.kind === "outbox").map((t) => t.channel);
  const outbox = outboxChannels.length ? new OutboxView(messages, outboxChannels) : undefined;
  return { messages, mail, sms, outbox };
}

async function smtpCa(config: Config): Promise<string | undefined> {
  if (config.SMTP_CA) return config.SMTP_CA;
  if (!config.SMTP_CA_FILE) return undefined;
  const pem = await Deno.readTextFile(config.SMTP_CA_FILE);
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new Error(`SMTP_CA_FILE ${config.SMTP_CA_FILE} holds no PEM certificate`);
  }
  return pem;
}

/**
 * Starts delivering: each message's job runs on `jobs` (the process's one jobs runner, which the
 * caller starts), or on a runner of the worker's own. Call once per process; stop() before
 * kv.close().
 */
export function startDelivery(
  deps: Messaging & { config: Config; now: () => number },
  opts: { log?: (line: string) => void; jobs?: JobRunner } = {},
): DeliveryWorker {
  const c = deps.config;
  const transports: Record<Channel, Transport> = { email: deps.mail, sms: deps.sms };
  return new DeliveryWorker(deps.messages, {
    transports,
    maxAttempts: c.MESSAGE_MAX_ATTEMPTS,
    backoffMs: c.MESSAGE_BACKOFF_MS,
    backoffMaxMs: c.MESSAGE_BACKOFF_MAX_MS,
    sendTimeoutMs: c.MESSAGE_SEND_TIMEOUT_MS,
    sweepMs: c.MESSAGE_SWEEP_MS,
    concurrency: c.MESSAGE_CONCURRENCY,
    messageIdHost: new URL(c.PUBLIC_URL).hostname,
    now: () => deps.now(),
    log: opts.log ?? ((line) => console.log(line)),
  }, opts.jobs).start();
}

/** The start-up lines naming where messages go. */
export function describeMessaging(m: Messaging): string {
  return `Messages: email → ${m.mail.describe()}; SMS → ${m.sms.describe()}`;
}
