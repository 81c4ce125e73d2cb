/**
 * The deploy rehearsal: main.ts started as today's Deno Deploy starts it — Deno 2.5.0 (from
 * npm, tests/deploy/runtime.ts), KV without queues (tests/deploy/no_queues.ts),
 * APP_ENV=production, settings only from the environment, a read-only working directory
 * (writes allowed only to the store's directory, which stands for the provisioned KV), plain
 * Deno.serve (DENO_DEPLOYMENT_ID is not set: it would open the default KV), and a stop as
 * Deploy stops an isolate: SIGINT, then SIGKILL 5 s later. It serves the client and the API,
 * delivers the activation mails through SMTP, and a kill in the middle of a delivery still
 * ends with each mail sent exactly once, by the next start.
 */
import assert from "node:assert/strict";
import { newIssuerKeyText } from "../../server/issuer/mod.ts";
import { orgFileWithUsers } from "../helpers.ts";
import { DEPLOY_DENO, NO_QUEUES, type Proc, ROOT, startMain } from "../server/main_process.ts";
import { startSmtpServer } from "../server/smtp_server.ts";

const DIST = `${ROOT}dist/preact`;

/** An SMTP server that greets and then never answers: a delivery hangs in the middle. */
function stallingSmtp() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  let seen = 0;
  const waiters: (() => void)[] = [];
  (async () => {
    for await (const c of listener) {
      conns.push(c);
      seen++;
      for (const w of waiters.splice(0)) w();
      c.write(new TextEncoder().encode("220 stall.test ESMTP\r\n")).catch(() => {});
      // Reads and drops whatever comes (EHLO), answers nothing more.
      (async () => {
        const buf = new Uint8Array(4096);
        try {
          while ((await c.read(buf)) !== null) { /* silent */ }
        } catch { /* closed */ }
      })();
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    /** Resolves once a delivery attempt has connected. */
    connected: () => seen ? Promise.resolve() : new Promise<void>((r) => waiters.push(r)),
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
    },
  };
}

/** Stops a process as Deno Deploy stops an isolate: SIGINT, SIGKILL 5 s later if still up. */
async function deployStop(p: Proc): Promise<Deno.CommandStatus> {
  p.child.kill("SIGINT");
  const killer = setTimeout(() => {
    try {
      p.child.kill("SIGKILL");
    } catch { /* exited */ }
  }, 5_000);
  const status = await p.status;
  clearTimeout(killer);
  return status;
}

Deno.test({
  name:
    "[deploy] rehearsal: Deno 2.5.0, no KV queues, production, read-only cwd; mail exactly once across a kill mid-delivery",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cwd = await Deno.makeTempDir({ prefix: "qcard-deploy-cwd-" });
    const store = await Deno.makeTempDir({ prefix: "qcard-deploy-kv-" });
    await Deno.chmod(cwd, 0o555);
    const org = await orgFileWithUsers(0);
    const users = (JSON.parse(await Deno.readTextFile(org.file)).users as { email: string }[])
      .map((u) => u.email.toLowerCase());
    const stall = stallingSmtp();
    const smtp = await startSmtpServer();
    const env = (smtpPort: number): Record<string, string> => ({
      APP_ENV: "production",
      PUBLIC_URL: "https://qcard.example.org",
      KV_PATH: `${store}/qcard.kv`,
      PORT: "0",
      LISTEN_HOST: "127.0.0.1",
      HTTP_GUARD: "false",
      ISSUER_KEY: key,
      ORG_FILE: org.file,
      MAIL_TRANSPORT: "smtp",
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: String(smtpPort),
      SMTP_TIMEOUT_MS: "60000",
      // An attempt outlives Deploy's 5 s grace: the kill leaves it 'sending' (lease 12 s).
      MESSAGE_SEND_TIMEOUT_MS: "6000",
      MESSAGE_BACKOFF_MS: "200",
      SMS_TRANSPORT: "none",
      MAIL_FROM: "QCard <no-reply@qcard.example.org>",
      PIN_HASH_ITERATIONS: "1000",
      SHUTDOWN_TIMEOUT_MS: "10000",
      STATIC_DIR: DIST,
      ...Object.fromEntries(
        ["HOME", "DENO_DIR"].flatMap((v) => Deno.env.get(v) ? [[v, Deno.env.get(v)!]] : []),
      ),
    });
    const key = newIssuerKeyText();
    const args = [
      "--preload",
      NO_QUEUES,
      `--allow-read=${ROOT},${store},${org.file}`,
      `--allow-write=${store}`,
      "--allow-net",
      "--allow-env",
      "--allow-sys",
    ];
    let p: Proc | undefined;
    try {
      // First start: the organisation is imported and its activation mails stored as due
      // jobs; delivery starts at once and hangs on the stalling server.
      p = await startMain(env(stall.port), { cwd, args, deno: DEPLOY_DENO });
      const base = `http://127.0.0.1:${p.port}`;
      const page = await fetch(`${base}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<html/i);
      const init = await fetch(`${base}/bonita/qtservlet/initialize`);
      assert.equal(init.status, 200, await init.clone().text());
      await init.body?.cancel();
      await stall.connected();
      // Stopped mid-delivery, as Deploy stops an isolate: the attempts still hang at 5 s.
      const killed = await deployStop(p);
      assert.equal(killed.signal, "SIGKILL", "the isolate was killed in the middle of a delivery");
      assert.equal(smtp.mails.length, 0);

      // The next start, the mail server back: every mail goes out, each once.
      p = await startMain(env(smtp.port), { cwd, args, deno: DEPLOY_DENO });
      await smtp.waitFor(users.length, 40_000);
      await new Promise((r) => setTimeout(r, 2_500)); // room for a second copy, were there one
      const to = smtp.mails.flatMap((m) => m.to.map((t) => t.toLowerCase())).sort();
      assert.deepEqual(to, [...users].sort(), "each user's activation mail exactly once");
      assert.equal(new Set(smtp.mails.map((m) => m.messageId)).size, smtp.mails.length);
      assert.doesNotMatch(p.stderr(), /not supported on Deno Deploy|NotCapable|PermissionDenied/);
      assert.deepEqual([...Deno.readDirSync(cwd)], [], "nothing written in the working directory");
      await deployStop(p);
      p = undefined;
    } finally {
      if (p) {
        try {
          p.child.kill("SIGKILL");
        } catch { /* exited */ }
        await p.status;
      }
      stall.close();
      await smtp.close();
      await Deno.chmod(cwd, 0o755);
      await Deno.remove(cwd, { recursive: true });
      await Deno.remove(store, { recursive: true });
      await Deno.remove(org.file);
    }
  },
});
