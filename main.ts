import { createApp } from "./server/app/app.ts";
import { onDenoDeploy, parseConfig } from "./server/config.ts";
import { makeDeps, seedIfEmpty, startDelivery } from "./server/app/boot.ts";
import { createLogger } from "./server/log.ts";
import { describeMessaging } from "./server/app/messages_setup.ts";
import { serveGuarded } from "./server/net/guard.ts";
import { onSignals } from "./server/app/shutdown.ts";

// main.ts only wires config → store → serve (engineering.md §2); logs are JSON lines
// (server/log.ts).

// Periodic duties (message and push sweeps, overdue check, blob sweep) also run from
// Deno.cron every minute: on Deno Deploy an isolate may stop between two timer runs, and cron
// starts one. Deploy requires registration at the top level, before anything is awaited.
const periodic: { tick?: () => Promise<void> } = {};
if (typeof Deno.cron === "function") {
  Deno.cron("qcard periodic duties", "* * * * *", () => periodic.tick?.());
}

const config = parseConfig(Deno.env.toObject());
const logger = createLogger(config.LOG_LEVEL);
const deps = await makeDeps(config);
// The crash tests (tests/server/jobs_crash_test.ts): outside production, QCARD_TEST_CRASH_AFTER
// names a write after whose commit this process kills itself, before anything else runs.
const crashAfter = config.APP_ENV === "production" ? "" : Deno.env.get("QCARD_TEST_CRASH_AFTER");
if (crashAfter) {
  deps.faults = {
    afterCommit: (what) => {
      if (what === crashAfter) Deno.kill(Deno.pid, "SIGKILL");
    },
  };
}
// Relay mode (docs/relay.md): the upstream is the system of record; this edge keeps no data of
// its own to seed or deliver (its store holds VAPID keys, kept translations, push records).
const relay = !!config.UPSTREAM_URL;
if (relay) logger.info("Relay mode: /bonita and /docservice go to the upstream");
else if (await seedIfEmpty(deps)) {
  const where = deps.mail.kind === "outbox" ? "read them at /_outbox" : deps.mail.describe();
  logger.info(`Loaded the demo organisation; activation emails queued (${where})`);
}
if (!relay) logger.info(describeMessaging(deps));
// Delivery runs beside the server: a mail server away delays mail, never start-up or answers.
const workers = relay ? undefined : startDelivery(deps, { log: logger.line("warn") });
periodic.tick = workers && (() => workers.tick());
const meta = await deps.store.org.meta();
const support = meta?.organisation.supportUrl;
const app = createApp(deps, { frameSrc: support ? [new URL(support).origin] : [], logger });
const onListen = ({ port }: { port: number }) =>
  logger.info(`QCard listening on http://localhost:${port}/`, { port });
const handler = (
  req: Request,
  info: { remoteAddr: Deno.NetAddr; closeAfterAnswer?: () => void },
) => app.fetch(req, { remoteAddr: info.remoteAddr, closeAfterAnswer: info.closeAfterAnswer });
// Header, idle and connection limits (Deno.serve has none): see server/net/guard.ts. Deno
// Deploy owns the sockets itself (no port to listen on): plain Deno.serve there.
const server = config.HTTP_GUARD && !onDenoDeploy()
  ? serveGuarded({
    port: config.PORT,
    hostname: config.LISTEN_HOST,
    headerTimeoutMs: config.HTTP_HEADER_TIMEOUT_MS,
    idleTimeoutMs: Math.max(config.HTTP_IDLE_TIMEOUT_MS, config.BODY_TIMEOUT_MS + 1000),
    maxConnections: config.HTTP_MAX_CONNECTIONS,
    maxConnectionsPerPeer: config.HTTP_MAX_CONNECTIONS_PER_PEER,
    unlimitedPeers: config.TRUSTED_PROXIES,
    onListen,
  }, handler)
  : Deno.serve({ port: config.PORT, hostname: config.LISTEN_HOST, onListen }, handler);
// SIGTERM/SIGINT: stop accepting, finish answers (bounded), stop the workers, close KV.
onSignals({ server, workers, kv: deps.store.kv, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, logger });
