import { type Config, onDenoDeploy } from "./config.ts";
import type { Deps } from "./env.ts";
import { EventBus } from "./domain/events.ts";
import { sendActivation } from "./domain/activation.ts";
import { OutboxTransport } from "./mail/outbox.ts";
import { SmtpTransport } from "./mail/smtp.ts";
import type { MailTransport } from "./mail/transport.ts";
import { importOrg } from "./org/import.ts";
import { parseOrg } from "./org/schema.ts";
import { openKv } from "./store/kv.ts";
import { createStore } from "./store/mod.ts";

const DEMO_ORG_URL = new URL("./org/demo_org.json", import.meta.url);

/** Opens the store and mail transport that config names, and assembles the deps. */
export async function makeDeps(
  config: Config,
  kv?: Deno.Kv,
  opts: { log?: (line: string) => void } = {},
): Promise<Deps> {
  const store = createStore(kv ?? await openKv(config.KV_PATH, onDenoDeploy()));
  let mail: MailTransport;
  let outbox: OutboxTransport | undefined;
  if (config.MAIL_TRANSPORT === "smtp") {
    mail = new SmtpTransport({
      host: config.SMTP_HOST!,
      port: config.SMTP_PORT,
      secure: config.SMTP_SECURE,
      user: config.SMTP_USER,
      pass: config.SMTP_PASS,
      from: config.MAIL_FROM,
    });
  } else {
    mail = outbox = new OutboxTransport(store.kv, opts.log);
  }
  return { config, store, mail, outbox, events: new EventBus(), now: Date.now };
}

export async function loadDemoOrg() {
  const text = DEMO_ORG_URL.protocol === "file:"
    ? await Deno.readTextFile(DEMO_ORG_URL)
    : await (await fetch(DEMO_ORG_URL)).text();
  return parseOrg(JSON.parse(text));
}

/**
 * First start with an empty store: load the demo organisation (or ORG_FILE) and send every
 * user an activation email, so a newcomer can activate from the outbox. Returns true if seeded.
 */
export async function seedIfEmpty(deps: Deps): Promise<boolean> {
  const { store, config } = deps;
  if ((await store.users.count()) > 0) return false;
  let org;
  if (config.ORG_FILE) org = parseOrg(JSON.parse(await Deno.readTextFile(config.ORG_FILE)));
  else if (config.DEMO_ORG) org = await loadDemoOrg();
  else return false;
  await importOrg(store, org, config.PIN_HASH_ITERATIONS);
  for (const u of await store.users.all()) await sendActivation(deps, u);
  return true;
}
