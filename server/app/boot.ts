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
import { startSweeper } from "../store/blobs.ts";
import { claimPeriod, leaseTtl, release, releaseHeld, runLeased } from "../store/lease.ts";
import { sweepBlobs } from "../domain/documents.ts";
import { pushSender, startPush } from "../push/mod.ts";
import { startReminders } from "../reminders/receipts.ts";
import { startReconciler } from "../domain/issuer_reconcile.ts";
import { startCardStops } from "../domain/leavers.ts";

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

/** How often due card stops of leavers are looked for (each job keeps its own backoff). */
const CARD_STOP_POLL_MS = 30_000;

/**
 * Starts delivering queued messages (woken by commits, and swept), web push (server/push/)
 * and the blob sweep (abandoned uploads, interrupted deletions, every BLOB_SWEEP_MS):
 * main.ts calls it once the store is ready. Stop it (`await worker.stop()`, which stops
 * them all) before closing the KV. `worker.tick()` runs every periodic duty once (Deno.cron
 * calls it every minute: on Deno Deploy an isolate may stop between two timer runs).
 */
export function startDelivery(
  deps: Deps,
  opts: { log?: (line: string) => void } = {},
): DeliveryWorker {
  const worker = startWorker(deps, opts);
  // Scale-out (docs/stores.md): one process on the store sweeps at a time (server/store/lease.ts).
  const every = deps.config.BLOB_SWEEP_MS;
  const sweep = () =>
    runLeased(deps.store.kv, "blob-sweep", leaseTtl(every), () => sweepBlobs(deps));
  const sweeper = startSweeper(sweep, every, opts.log);
  // spec §1 push notifications: web push (events → push jobs in KV → push services) and the overdue
  // check.
  const push = startPush(deps, opts);
  // Authorizations the issuer recorded without their transaction (a process that died
  // between the two writes): repaired at start, then periodically.
  const reconcileMs = deps.config.ISSUER_RECONCILE_MS;
  const reconciler = startReconciler(deps, reconcileMs, opts.log);
  // Leavers' cards stopped at the issuer, retried until done (domain/leavers.ts).
  const cardStops = startCardStops(deps, CARD_STOP_POLL_MS, opts.log);
  // spec §5: reminders of missing receipts (a push, a weekly digest), until done.
  const sender = pushSender(deps);
  const reminders = startReminders(deps, {
    push: async () => !!(await sender()),
    kick: () => push.worker.kick(),
    log: opts.log,
  });
  const tickWorker = worker.tick.bind(worker);
  worker.tick = async () => {
    const blobs = claimPeriod(deps.store.kv, "blob-sweep", every, deps.now())
      .then((ok) => ok ? sweeper.tick() : undefined);
    const reconcile = claimPeriod(deps.store.kv, "issuer-reconcile", reconcileMs, deps.now())
      .then((ok) => ok ? reconciler.tick() : undefined);
    await Promise.all([
      tickWorker(),
      push.tick(),
      blobs,
      reconcile,
      reminders.tick(),
      cardStops.tick(),
    ]);
  };
  const stopWorker = worker.stop.bind(worker);
  worker.stop = async () => {
    await reconciler.stop();
    await cardStops.stop();
    await reminders.stop();
    await push.stop();
    await sweeper.stop();
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
