import { type Config, onDenoDeploy } from "../config.ts";
import type { Deps } from "../domain/env.ts";
import { EventBus } from "../domain/events.ts";
import { sendActivation } from "../domain/activation.ts";
import { buildMessaging, startDelivery as startWorker } from "./messages_setup.ts";
import type { DeliveryWorker } from "../messages/worker.ts";
import { seedDemoHistory } from "./demo_history.ts";
import { importOrg } from "../org_sync/import.ts";
import { parseOrg } from "../org/parse.ts";
import { createIssuer, loadIssuerKey, newIssuerKeyText } from "../issuer/mod.ts";
import { openKv } from "../store/kv.ts";
import { createStore } from "../store/mod.ts";
import { release, releaseHeld, runLeased } from "../store/lease.ts";
import { sweepBlobs } from "../domain/documents.ts";
import { OVERDUE_CHECK_MS, pushSender, pushSendTimeoutMs, startPush } from "../push/mod.ts";
import { JobRunner } from "../jobs/runner.ts";
import { Scheduler } from "../jobs/scheduler.ts";
import { REMINDER_CHECK_MS, runReminders } from "../reminders/receipts.ts";
import { reconcileAuthorizations } from "../domain/issuer_reconcile.ts";
import { runCardStops } from "../domain/leavers.ts";

const DEMO_ORG_URL = new URL("../org/demo_org.json", import.meta.url);

/**
 * Opens the store, builds the message queue and the transports config names, and assembles
 * the deps. No side effects beyond opening KV: no connection, no worker (see startDelivery).
 */
export async function makeDeps(
  config: Config,
  kv?: Deno.Kv,
  opts: { log?: (line: string) => void } = {},
): Promise<Deps> {
  const store = createStore(
    kv ?? await openKv(config.KV_PATH, onDenoDeploy(), { poolSize: config.PG_POOL_SIZE }),
  );
  // deps.now is read at each use: tests move the clock by replacing it.
  const messaging = await buildMessaging(config, store.kv, () => deps.now(), opts.log);
  // The card issuer (spec §3 Card): the embedded simulator, its vault key from ISSUER_KEY.
  // An edge in relay mode (UPSTREAM_URL) issues no card: its simulator is never reached (every
  // /bonita call goes upstream), so it needs no ISSUER_KEY and gets a throwaway one.
  const key = await loadIssuerKey({
    ISSUER_KEY: config.UPSTREAM_URL ? newIssuerKeyText() : config.ISSUER_KEY,
    APP_ENV: config.APP_ENV,
    KV_PATH: config.KV_PATH,
    onDeploy: onDenoDeploy(),
  }, { warn: opts.log ?? console.warn });
  const issuer = createIssuer(config.ISSUER, { kv: store.kv, key, now: () => deps.now() });
  const deps: Deps = {
    config,
    store,
    ...messaging,
    issuer,
    events: new EventBus(),
    now: Date.now,
  };
  return deps;
}

/** Period of the sweep for jobs written by other processes (or left by a dead one). */
const JOBS_POLL_MS = 2_000;
/** Jobs run at the same time. */
const JOBS_CONCURRENCY = 16;

/** How often due card stops of leavers are looked for (each job keeps its own backoff). */
const CARD_STOP_POLL_MS = 30_000;

/**
 * Starts the background work once the store is ready (main.ts): the jobs wing (server/jobs/: one
 * runner for mail and SMS, pushes and the notifications that make them, each written with its
 * change) and the one scheduler of the periodic duties. Stop it
 * (`await worker.stop()`, which stops them all) before closing the KV. `worker.tick()` runs
 * everything once (Deno.cron calls it every minute: on Deno Deploy an isolate may stop between
 * two timer runs).
 */
export function startDelivery(
  deps: Deps,
  opts: { log?: (line: string) => void } = {},
): DeliveryWorker {
  const log = opts.log ?? ((line: string) => console.log(line));
  const c = deps.config;
  const jobs = new JobRunner({
    kv: deps.store.kv,
    kinds: {},
    now: () => deps.now(),
    log,
    maxAttempts: c.MESSAGE_MAX_ATTEMPTS,
    backoffMs: c.MESSAGE_BACKOFF_MS,
    backoffMaxMs: c.MESSAGE_BACKOFF_MAX_MS,
    runTimeoutMs: pushSendTimeoutMs(c),
    concurrency: JOBS_CONCURRENCY,
    pollMs: Math.min(c.MESSAGE_SWEEP_MS, JOBS_POLL_MS),
  });
  // Mail and SMS: each message's delivery is a job (server/messages/worker.ts).
  const worker = startWorker(deps, { ...opts, jobs });
  // spec §1 push notifications: changes → notify jobs → push jobs → push services.
  const push = startPush(deps, { jobs, log });
  jobs.start();
  const sender = pushSender(deps);
  // Scale-out (docs/stores.md): a leased duty runs in one process on the store at a time.
  const duties = new Scheduler(deps.store.kv, { now: () => deps.now(), log })
    // Abandoned uploads and interrupted deletions.
    .add({
      name: "blob-sweep",
      everyMs: c.BLOB_SWEEP_MS,
      firstAfterMs: Math.min(c.BLOB_SWEEP_MS, 5_000),
      run: () => sweepBlobs(deps),
    })
    // Authorizations the issuer recorded without their transaction (a process that died
    // between the two writes): repaired at start, then periodically.
    .add({
      name: "issuer-reconcile",
      everyMs: c.ISSUER_RECONCILE_MS,
      firstAfterMs: 0,
      firstUnleased: true,
      run: async () => {
        const r = await reconcileAuthorizations(deps);
        if (r.created > 0) {
          log(`issuer reconciliation: ${r.created} missing transaction(s) recorded`);
        }
      },
    })
    // Leavers' cards stopped at the issuer, each retried with its own backoff until done.
    .add({
      name: "card-stops",
      everyMs: CARD_STOP_POLL_MS,
      mode: "each",
      run: () => runCardStops(deps),
    })
    // spec §5: reminders of missing receipts (a push, a weekly digest), until done.
    .add({
      name: "receipt-reminders",
      everyMs: REMINDER_CHECK_MS,
      run: async () => runReminders(deps, { push: !!(await sender()) }),
    })
    // spec §1: a receipt becoming overdue is pushed to its holder.
    .add({
      name: "push-overdue",
      everyMs: OVERDUE_CHECK_MS,
      firstAfterMs: 0,
      run: () => push.checkOverdue(),
    })
    .start();
  worker.tick = async () => {
    await Promise.all([jobs.tick(), duties.tick()]);
  };
  const stopWorker = worker.stop.bind(worker);
  worker.stop = async () => {
    await duties.stop();
    await push.stop();
    await jobs.stop();
    await stopWorker();
    // Hands the periodic duties this process held to the others at their next tick.
    await releaseHeld(deps.store.kv).catch(() => {});
  };
  return worker;
}

export async function loadDemoOrg() {
  const text = DEMO_ORG_URL.protocol === "file:"
    ? await Deno.readTextFile(DEMO_ORG_URL)
    : await (await fetch(DEMO_ORG_URL)).text();
  return parseOrg(JSON.parse(text));
}

/**
 * First start with an empty store: load the demo organisation (or ORG_FILE) and queue every
 * user's activation email, so a newcomer can activate from the outbox. Never waits for a
 * mail server: the mails are queued and the worker delivers them. Returns true if seeded.
 * With the demo organisation and DEMO_HISTORY (default), employee@ starts with a history
 * (server/app/demo_history.ts), seeded before the activation mails so their codes count
 * from now.
 */
export async function seedIfEmpty(deps: Deps): Promise<boolean> {
  if ((await deps.store.users.count()) > 0) return false;
  // Scale-out (docs/stores.md): processes starting together on one empty store seed it once. The
  // first to take the "seed" lease imports; the others wait for it to finish, then find users.
  for (;;) {
    const r = await runLeased(deps.store.kv, "seed", SEED_LEASE_MS, () => seed(deps))
      .finally(() => release(deps.store.kv, "seed").catch(() => {})); // ours only, if at all
    if (r.ran) return r.value;
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/** How long a seeding process holds the store before another may take over (renewed). */
const SEED_LEASE_MS = 30_000;

async function seed(deps: Deps): Promise<boolean> {
  const { store, config } = deps;
  if ((await store.users.count()) > 0) return false;
  let org;
  let demo = false;
  if (config.ORG_FILE) org = parseOrg(JSON.parse(await Deno.readTextFile(config.ORG_FILE)));
  else if (config.DEMO_ORG) [org, demo] = [await loadDemoOrg(), true];
  else return false;
  await importOrg(store, org, config.PIN_HASH_ITERATIONS);
  if (demo && config.DEMO_HISTORY) await seedDemoHistory(deps);
  for (const u of await store.users.all()) await sendActivation(deps, u);
  return true;
}
