import * as z from "zod";

/** The version line the spec fixes (§1). */
export const APP_VERSION = "2.25.0211";

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
  KV_PATH: z.string().default("./data/qcard.kv"),
  STATIC_DIR: z.string().default("./dist/preact"),
  PUBLIC_URL: z.url().default("http://localhost:8000"),
  MAIL_TRANSPORT: z.enum(["outbox", "smtp"]).default("outbox"),
  MAIL_FROM: z.string().default("QCard <no-reply@qcard.example>"),
  SMTP_HOST: z.string().optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  SMTP_SECURE: bool.default(false),
  SMTP_USER: z.string().optional(),
  SMTP_PASS: z.string().optional(),
  DEMO_ORG: bool.default(true),
  ORG_FILE: z.string().optional(),
  /** Lifetime of an emailed activation code (see the README's security model). */
  CODE_TTL_MINUTES: z.coerce.number().int().min(1).max(60 * 24 * 14).default(60 * 24),
  /** Lifetime of a code sent through lost activation, bound to the device that asked. */
  BOUND_CODE_TTL_MINUTES: z.coerce.number().int().min(1).max(60 * 24).default(30),
  /** Code checks per day for the whole organisation before the safe mode (README). */
  ACTIVATION_CHECKS_PER_DAY: z.coerce.number().int().min(1).max(100_000).default(10),
  /** Bearer tokens unused for this many days stop working. */
  TOKEN_IDLE_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Opens the development pages (/_outbox…) to non-loopback callers that send it. */
  DEV_SECRET: z.string().min(16).optional(),
  /** A request body not received in full within this time is refused (408). */
  BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  PIN_HASH_ITERATIONS: z.coerce.number().int().min(1000).default(100_000),
  UPSTREAM_URL: z.url().optional(),
  /** Check every answer against the contract (drift shows in tests); off in production. */
  CHECK_RESPONSES: bool.optional(),
}).superRefine((c, ctx) => {
  // The outbox hands out login codes: it may only exist on the embedded demo set-up.
  if (c.APP_ENV === "production" && c.MAIL_TRANSPORT === "outbox") {
    ctx.addIssue({
      code: "custom",
      path: ["MAIL_TRANSPORT"],
      message: "production refuses the outbox mail transport: set MAIL_TRANSPORT=smtp",
    });
  }
  if (c.MAIL_TRANSPORT === "smtp" && !c.SMTP_HOST) {
    ctx.addIssue({ code: "custom", path: ["SMTP_HOST"], message: "SMTP_HOST is required" });
  }
});

export type Config = z.infer<typeof ConfigSchema>;

/** Parses config from an env record; throws an Error naming every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const clean = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ""),
  );
  const r = ConfigSchema.safeParse(clean);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return r.data;
}

/** True on Deno Deploy, where KV is managed and nothing is written to disk. */
export function onDenoDeploy(): boolean {
  try {
    return Boolean(Deno.env.get("DENO_DEPLOYMENT_ID"));
  } catch {
    return false;
  }
}
