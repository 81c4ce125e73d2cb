import { createApp } from "./server/app.ts";
import { parseConfig } from "./server/config.ts";
import { makeDeps, seedIfEmpty, startDelivery } from "./server/boot.ts";
import { describeMessaging } from "./server/messages/setup.ts";
import { serveGuarded } from "./server/net/guard.ts";

// main.ts only wires config → store → serve (GUIDE §2).
const config = parseConfig(Deno.env.toObject());
const deps = await makeDeps(config);
if (await seedIfEmpty(deps)) {
  const where = deps.mail.kind === "outbox" ? "read them at /_outbox" : deps.mail.describe();
  console.log(`Loaded the demo organisation; activation emails queued (${where})`);
}
console.log(describeMessaging(deps));
// Delivery runs beside the server: a mail server away delays mail, never start-up or answers.
startDelivery(deps);
const meta = await deps.store.org.meta();
const support = meta?.organisation.supportUrl;
const app = createApp(deps, { frameSrc: support ? [new URL(support).origin] : [] });
const onListen = ({ port }: { port: number }) =>
  console.log(`QCard listening on http://localhost:${port}/`);
const handler = (req: Request, info: { remoteAddr: Deno.NetAddr }) =>
  app.fetch(req, { remoteAddr: info.remoteAddr });
// Header, idle and connection limits (Deno.serve has none): see server/net/guard.ts.
if (config.HTTP_GUARD) {
  serveGuarded({
    port: config.PORT,
    hostname: config.LISTEN_HOST,
    headerTimeoutMs: config.HTTP_HEADER_TIMEOUT_MS,
    idleTimeoutMs: Math.max(config.HTTP_IDLE_TIMEOUT_MS, config.BODY_TIMEOUT_MS + 1000),
    maxConnections: config.HTTP_MAX_CONNECTIONS,
    onListen,
  }, handler);
} else {
  Deno.serve({ port: config.PORT, hostname: config.LISTEN_HOST, onListen }, handler);
}
