import * as z from "zod";
import { LOG_LEVELS } from "./log.ts";
import {
  COSE_ALGORITHMS,
  type CoseAlgorithmName,
  DEFAULT_PASSKEY_ALGORITHMS,
} from "../client/shared/webauthn_limits.ts";
import { KNOWN_PUSH_HOSTS, pushHostIssue, pushHostList } from "./push_subscription.ts";

const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/**
 * Every setting comes from the environment and is validated here, once, at start-up.
 * Defaults are the embedded demo set-up: a KV file under ./data, mail to the outbox.
 */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  /**
   * Listen address. Loopback unless set: `HOSTNAME` is not read, since Docker and Kubernetes
   * set it to the container's name.
   */
  LISTEN_HOST: z.string().min(1).default("127.0.0.1"),
  APP_ENV: z.enum(["development", "production"]).default("development"),
  /**
   * The store: a Deno KV file, `:memory:`, or `postgres://…` / `postgresql://…` for PostgreSQL
   * (server/store/pg_kv.ts). Unset: DATABASE_URL, else the PG* variables (what Deno Deploy
   * injects for an assigned Postgres database), else ./data/qcard.kv (see storeFromEnv).
   */
  KV_PATH: z.string().default("./data/qcard.kv"),
  /** Connections to PostgreSQL at most, per process. */
  PG_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  STATIC_DIR: z.string().default("./dist/preact"),
  /**
   * The address people open (emails link to it; passkeys are bound to its origin). Unset:
   * `http://localhost:PORT` (8000 when PORT is 0), so a development server on another port
   * still matches what the browser shows.
   */
  PUBLIC_URL: z.url().optional(),
  /**
   * Signature algorithms offered to passkeys, most preferred first (names of
   * client/shared/webauthn_limits.ts). ML-DSA ones are dropped where the runtime cannot
   * verify them (Deno Deploy's 2.5.0).
   */
  PASSKEY_ALGORITHMS: z.string().default(DEFAULT_PASSKEY_ALGORITHMS.join(",")).transform(
    (s, ctx) => {
      const names = s.split(",").map((a) => a.trim()).filter(Boolean);
      for (const n of names) {
        if (!(n in COSE_ALGORITHMS)) {
          ctx.addIssue({
            code: "custom",
            message: `unknown algorithm ${n}: one of ${Object.keys(COSE_ALGORITHMS).join(", ")}`,
          });
        }
      }
      if (!names.length) ctx.addIssue({ code: "custom", message: "at least one algorithm" });
      return names as CoseAlgorithmName[];
    },
  ),
  MAIL_TRANSPORT: z.enum(["outbox", "smtp"]).default("outbox"),
  MAIL_FROM: z.string().default("QCard <no-reply@qcard.example>"),
  SMTP_HOST: z.string().optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  SMTP_SECURE: bool.default(false),
  SMTP_USER: z.string().optional(),
  SMTP_PASS: z.string().optional(),
  // Messages (docs/messages.md): durable outbox, delivery worker, SMTP TLS, SMS.
  /** Refuse to send mail in clear when the server does not offer STARTTLS. */
  SMTP_REQUIRE_TLS: bool.default(false),
  /** A PEM file of the CA (or self-signed certificate) the SMTP server's certificate chains to. */
  SMTP_CA_FILE: z.string().optional(),
  /** The same PEM inline (platforms without files). */
  SMTP_CA: z.string().optional(),
  /** SMTP connection, greeting and socket inactivity timeout. */
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /** `outbox` (demo) or `http`; unset: `outbox` with the outbox mail transport, else no SMS. */
  SMS_TRANSPORT: z.enum(["outbox", "http", "none"]).optional(),
  SMS_HTTP_URL: z.url().optional(),
  /** Header carrying SMS_HTTP_TOKEN, e.g. `authorization` or `x-api-key`. */
  SMS_HTTP_AUTH_HEADER: z.string().regex(/^[A-Za-z0-9-]+$/).default("authorization"),
  /** The header's value, sent as is (e.g. `Bearer …`). */
  SMS_HTTP_TOKEN: z.string().optional(),
  /** Delivery attempts before a message is left failed for an operator. */
  MESSAGE_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(12),
  /** First retry delay, doubled each attempt up to MESSAGE_BACKOFF_MAX_MS. */
  MESSAGE_BACKOFF_MS: z.coerce.number().int().min(1).max(3_600_000).default(5_000),
  MESSAGE_BACKOFF_MAX_MS: z.coerce.number().int().min(1).max(86_400_000).default(3_600_000),
  /** One attempt is abandoned (and retried) after this. */
  MESSAGE_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** Period of the sweep for due messages this process was not woken for (plus cron). */
  MESSAGE_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** Messages sent at the same time, at most. */
  MESSAGE_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  /** Delivered, expired and discarded messages are kept this long (failed ones until handled). */
  MESSAGE_RETENTION_DAYS: z.coerce.number().min(0.001).max(365).default(7),
  /**
   * Load the demo organisation into an empty store. Default: true in development, false in
   * production (where it is refused: its activation mails would go out for real).
   */
  DEMO_ORG: bool.optional(),
  /**
   * With the demo organisation (not ORG_FILE): seed employee@'s history on first start
   * (server/app/demo_history.ts). false starts the demo empty.
   */
  DEMO_HISTORY: bool.default(true),
  ORG_FILE: z.string().optional(),
  /**
   * SCIM 2.0 provisioning (server/routes/scim.ts, docs/people.md): the bearer token an identity
   * provider (Okta, Microsoft Entra ID) sends to /scim/v2. Unset, or in relay mode: /scim is 404.
   */
  SCIM_TOKEN: z.string().min(32, "at least 32 characters").optional(),
  /** Lifetime of an emailed activation code (see docs/security.md). */
  CODE_TTL_MINUTES: z.coerce.number().int().min(1).max(60 * 24 * 14).default(60 * 24),
  /** Lifetime of a code sent through lost activation, bound to the device that asked. */
  BOUND_CODE_TTL_MINUTES: z.coerce.number().int().min(1).max(60 * 24).default(30),
  /** Code checks per day for the whole organisation before the safe mode (docs/security.md). */
  ACTIVATION_CHECKS_PER_DAY: z.coerce.number().int().min(1).max(100_000).default(10),
  /** Bearer tokens unused for this many days stop working. */
  TOKEN_IDLE_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Opens the development pages (/_outbox…) to non-loopback callers that send it. */
  DEV_SECRET: z.string().min(16).optional(),
  /** A request body not received in full within this time is refused (408). */
  BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /**
   * The connection guard in front of Deno.serve (server/net/guard.ts): a request's headers
   * must arrive within HTTP_HEADER_TIMEOUT_MS, an idle connection closes after
   * HTTP_IDLE_TIMEOUT_MS (kept above BODY_TIMEOUT_MS), at most HTTP_MAX_CONNECTIONS are open.
   * HTTP_GUARD=false serves with plain Deno.serve (behind a proxy that does this already).
   */
  HTTP_GUARD: bool.default(true),
  HTTP_HEADER_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
  /**
   * Open connections at most from one address (TRUSTED_PROXIES exempt): one peer cannot take
   * the server's connections (and the memory each holds). A browser opens about 6.
   */
  HTTP_MAX_CONNECTIONS_PER_PEER: z.coerce.number().int().min(1).max(1_000_000).default(256),
  /** The card issuer; only the embedded simulator exists (a real one slots in server/issuer/). */
  ISSUER: z.enum(["simulator"]).default("simulator"),
  /**
   * The issuer vault's key, 32 bytes base64url (never logged). Required in production; in
   * development generated once beside the KV file.
   */
  ISSUER_KEY: z.string().optional(),
  PIN_HASH_ITERATIONS: z.coerce.number().int().min(1000).default(100_000),
  // Receipts and documents (spec §3 Document, Receipt): files in KV chunks (server/store/blobs.ts).
  /** Largest file one upload may carry (bytes); 413 above it. */
  UPLOAD_MAX_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(10_485_760),
  /** An upload's body must arrive within this (a 10 MB file on a slow phone link). */
  UPLOAD_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  /** Chunks of a blob never committed (a failed or abandoned upload) are swept after this. */
  BLOB_PENDING_TTL_MS: z.coerce.number().int().min(1000).max(7 * 86_400_000).default(900_000),
  /** Period of that sweep (which also finishes deletions a crash interrupted). */
  BLOB_SWEEP_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  /**
   * Period of the reconciliation with the issuer (server/domain/issuer_reconcile.ts): every
   * authorization changed since the last run gets its transaction. Also run at every start.
   */
  ISSUER_RECONCILE_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  /**
   * spec §5 missing receipts: hours after a purchase is captured before its holder is reminded
   * (one push) of a receipt still missing; such transactions also go in the weekly digest
   * (server/reminders/receipts.ts).
   */
  RECEIPT_REMINDER_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(24),
  // Web push (spec §1 push notifications): server/push/. Keys are base64url (web-push's
  // generateVAPIDKeys()).
  /** The VAPID public key (65-byte uncompressed P-256 point); with VAPID_PRIVATE_KEY. */
  VAPID_PUBLIC_KEY: z.string().optional(),
  /** The VAPID private key (32 bytes; never logged). */
  VAPID_PRIVATE_KEY: z.string().optional(),
  /**
   * Who runs this server, for push services: a real `mailto:` address or `https:` URL
   * (Apple answers 403 BadJwtToken to placeholders such as mailto:x@example.com).
   */
  VAPID_SUBJECT: z.string().optional(),
  /**
   * Push endpoints accepted (docs/messages.md, web push), comma-separated: push services' host
   * names (`*.` for a service's subdomains; https on port 443 only) or exact origins (a local
   * test receiver, `http://127.0.0.1:8125`; https only in production). Default: the known
   * push services (server/push_subscription.ts KNOWN_PUSH_HOSTS).
   */
  PUSH_HOSTS: z.string().default(KNOWN_PUSH_HOSTS.join(",")).transform(pushHostList),
  // Relay mode (docs/relay.md): server/relay/.
  /** The system of record: every /bonita/* call is relayed to it (the edge serves the client). */
  UPSTREAM_URL: z.url().optional(),
  /** A relayed call not answered (headers) within this is answered 504. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * Addresses of edges (or other proxies) in front of this server, comma-separated: for a
   * request from one of them, per-address limits count the last X-Forwarded-For entry (the
   * address the edge saw) instead of the edge's own. Empty: no forwarding header is believed.
   */
  TRUSTED_PROXIES: z.string().default("").transform((s) =>
    s.split(",").map((a) => a.trim()).filter(Boolean)
  ),
  /**
   * Push through an edge (relay mode, server/push/): on the upstream, the edge's URL (its origin);
   * notifications are then handed to the edge, which holds the VAPID keys, instead of being
   * sent to push services from here.
   */
  PUSH_RELAY_URL: z.url().optional(),
  /**
   * The secret shared by edge and upstream (at least 32 characters) for push relay requests
   * (HMAC-SHA256 over timestamp and body). On the edge it opens POST /edge/push.
   */
  PUSH_RELAY_SECRET: z.string().min(32).optional(),
  // Operating it (docs/deploying.md): server/log.ts, server/app/shutdown.ts.
  /** JSON log lines at this level and above on stdout (requests at info, 5xx at error). */
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  /** On SIGTERM/SIGINT, answers in flight get this long before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** Check every answer against the contract (drift shows in tests); off in production. */
  CHECK_RESPONSES: bool.optional(),
}).superRefine((c, ctx) => {
  // The outbox hands out login codes: it may only exist on the embedded demo set-up.
  // An edge in relay mode sends no mail (the upstream does): it needs no mail server.
  if (c.APP_ENV === "production" && c.MAIL_TRANSPORT === "outbox" && !c.UPSTREAM_URL) {
    ctx.addIssue({
      code: "custom",
      path: ["MAIL_TRANSPORT"],
      message: "production refuses the outbox mail transport: set MAIL_TRANSPORT=smtp",
    });
  }
  if (c.MAIL_TRANSPORT === "smtp" && !c.SMTP_HOST) {
    ctx.addIssue({ code: "custom", path: ["SMTP_HOST"], message: "SMTP_HOST is required" });
  }
  if (c.APP_ENV === "production" && c.DEMO_ORG) {
    ctx.addIssue({
      code: "custom",
      path: ["DEMO_ORG"],
      message: "production refuses the demo organisation: import yours (deno task import)",
    });
  }
  messageIssues(c).forEach(([path, message]) => ctx.addIssue({ code: "custom", path, message }));
  vapidIssues(c).forEach(([path, message]) => ctx.addIssue({ code: "custom", path, message }));
  for (const entry of c.PUSH_HOSTS) {
    const issue = pushHostIssue(entry, c.APP_ENV === "production");
    if (issue) ctx.addIssue({ code: "custom", path: ["PUSH_HOSTS"], message: issue });
  }
});

/** The messages' settings: SMS transport, CA, backoff bounds. */
function messageIssues(c: {
  APP_ENV: string;
  SMS_TRANSPORT?: string;
  SMS_HTTP_URL?: string;
  SMTP_CA?: string;
  SMTP_CA_FILE?: string;
  MESSAGE_BACKOFF_MS: number;
  MESSAGE_BACKOFF_MAX_MS: number;
}): [string[], string][] {
  const out: [string[], string][] = [];
  if (c.APP_ENV === "production" && c.SMS_TRANSPORT === "outbox") {
    out.push([["SMS_TRANSPORT"], "production refuses the outbox SMS transport: set it to http"]);
  }
  if (c.SMS_TRANSPORT === "http" && !c.SMS_HTTP_URL) {
    out.push([["SMS_HTTP_URL"], "SMS_HTTP_URL is required with SMS_TRANSPORT=http"]);
  }
  if (c.APP_ENV === "production" && c.SMS_HTTP_URL) {
    const u = new URL(c.SMS_HTTP_URL);
    if (u.protocol !== "https:" && !["localhost", "127.0.0.1", "[::1]"].includes(u.hostname)) {
      out.push([["SMS_HTTP_URL"], "production sends SMS credentials over https only"]);
    }
  }
  if (c.SMTP_CA && c.SMTP_CA_FILE) {
    out.push([["SMTP_CA"], "set SMTP_CA or SMTP_CA_FILE, not both"]);
  }
  if (c.SMTP_CA && !c.SMTP_CA.includes("-----BEGIN CERTIFICATE-----")) {
    out.push([["SMTP_CA"], "SMTP_CA must be PEM (-----BEGIN CERTIFICATE-----)"]);
  }
  if (c.MESSAGE_BACKOFF_MAX_MS < c.MESSAGE_BACKOFF_MS) {
    out.push([["MESSAGE_BACKOFF_MAX_MS"], "must be at least MESSAGE_BACKOFF_MS"]);
  }
  return out;
}

/** Base64url text of `bytes` bytes (no padding). */
function isB64url(s: string, bytes: number): boolean {
  return /^[A-Za-z0-9_-]+$/.test(s) && s.length === Math.ceil(bytes * 4 / 3);
}

/**
 * A placeholder VAPID subject: a reserved or loopback domain (example.*, *.test, *.invalid,
 * *.localhost, *.example, localhost, IP literals). Apple refuses them with 403 BadJwtToken.
 */
export function isPlaceholderSubject(subject: string): boolean {
  let host: string;
  try {
    const u = new URL(subject);
    host = u.protocol === "mailto:" ? u.pathname.split("@").pop() ?? "" : u.hostname;
  } catch {
    return true;
  }
  host = host.toLowerCase().replace(/\.$/, "");
  return !host || host === "localhost" || /^[\d.]+$/.test(host) || host.includes(":") ||
    /(^|\.)example\.(com|org|net)$/.test(host) ||
    /\.(example|test|invalid|localhost|local)$/.test(host) || !host.includes(".");
}

/** A `mailto:` address or an `https:` URL (what RFC 8292 and the push services accept). */
export function isVapidSubject(subject: string): boolean {
  if (/^mailto:[^@\s]+@[^@\s]+$/.test(subject)) return true;
  try {
    return new URL(subject).protocol === "https:";
  } catch {
    return false;
  }
}

/** Web push's settings: VAPID keys come in pairs; production needs a real subject. */
function vapidIssues(c: {
  APP_ENV: string;
  VAPID_PUBLIC_KEY?: string;
  VAPID_PRIVATE_KEY?: string;
  VAPID_SUBJECT?: string;
}): [string[], string][] {
  const out: [string[], string][] = [];
  const [pub, priv, sub] = [c.VAPID_PUBLIC_KEY, c.VAPID_PRIVATE_KEY, c.VAPID_SUBJECT];
  if (!!pub !== !!priv) {
    out.push([[pub ? "VAPID_PRIVATE_KEY" : "VAPID_PUBLIC_KEY"], "set both VAPID keys or neither"]);
  }
  if (pub && (!isB64url(pub, 65) || !pub.startsWith("B"))) {
    out.push([["VAPID_PUBLIC_KEY"], "must be a base64url P-256 public key (65 bytes, 87 chars)"]);
  }
  if (priv && !isB64url(priv, 32)) {
    out.push([["VAPID_PRIVATE_KEY"], "must be a base64url P-256 private key (32 bytes, 43 chars)"]);
  }
  if (sub !== undefined && !isVapidSubject(sub)) {
    out.push([["VAPID_SUBJECT"], "must be a mailto: address or an https: URL"]);
  } else if (c.APP_ENV === "production" && pub) {
    if (sub === undefined) {
      out.push([["VAPID_SUBJECT"], "production needs VAPID_SUBJECT with the VAPID keys"]);
    } else if (isPlaceholderSubject(sub)) {
      out.push([[
        "VAPID_SUBJECT",
      ], "production refuses a placeholder subject (push services answer 403 BadJwtToken)"]);
    }
  }
  return out;
}

export type Config = Omit<z.infer<typeof ConfigSchema>, "DEMO_ORG" | "PUBLIC_URL"> & {
  DEMO_ORG: boolean;
  PUBLIC_URL: string;
};

/** Parses config from an env record; throws an Error naming every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const clean = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ""),
  );
  const store = storeFromEnv(clean);
  if (store) clean.KV_PATH = store;
  const r = ConfigSchema.safeParse(clean);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return {
    ...r.data,
    PUBLIC_URL: r.data.PUBLIC_URL ?? `http://localhost:${r.data.PORT || 8000}`,
    DEMO_ORG: r.data.DEMO_ORG ?? r.data.APP_ENV !== "production",
  };
}

/** A PostgreSQL store URL (postgres:// or postgresql://). */
export function isPostgresUrl(path: string): boolean {
  return /^postgres(ql)?:\/\//i.test(path);
}

/**
 * The store named by the environment: KV_PATH when set (it always wins), else DATABASE_URL,
 * else a URL built from PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD and PGSSLMODE (the
 * libpq variables, which Deno Deploy sets for an assigned Postgres database); undefined
 * leaves KV_PATH's default.
 */
export function storeFromEnv(env: Record<string, string | undefined>): string | undefined {
  if (env.KV_PATH) return env.KV_PATH;
  if (env.DATABASE_URL) return env.DATABASE_URL;
  if (!env.PGHOST && !env.PGDATABASE) return undefined;
  const u = new URL("postgres://localhost");
  u.hostname = env.PGHOST ?? "localhost";
  if (env.PGPORT) u.port = env.PGPORT;
  u.pathname = `/${encodeURIComponent(env.PGDATABASE ?? env.PGUSER ?? "postgres")}`;
  if (env.PGUSER) u.username = encodeURIComponent(env.PGUSER);
  if (env.PGPASSWORD) u.password = encodeURIComponent(env.PGPASSWORD);
  if (env.PGSSLMODE) u.searchParams.set("sslmode", env.PGSSLMODE);
  return u.toString();
}

/** True on Deno Deploy, where KV is managed and nothing is written to disk. */
export function onDenoDeploy(): boolean {
  try {
    return Boolean(Deno.env.get("DENO_DEPLOYMENT_ID"));
  } catch {
    return false;
  }
}
