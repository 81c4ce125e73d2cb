/**
 * Operating it (docs/deploying.md): with APP_ENV=production and managed-KV semantics
 * (KV_PATH=":memory:" stands for the managed KV: no file), the app reads only env and writes
 * nothing to disk. main.ts runs as a subprocess with a read-only working directory, no
 * --allow-write, reads limited to the checkout (code, node_modules, the built client), env limited
 * to what it is given; it answers /healthz, an API call and the built client, and the directory
 * stays empty.
 */
import assert from "node:assert/strict";
import { newIssuerKeyText } from "../../server/issuer/mod.ts";
import { ROOT, startMain } from "./main_process.ts";

const DIST = `${ROOT}dist/preact`;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "[production] read-only cwd, no write permission, managed KV: it serves and writes nothing",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "qcard-prod-" });
    const built = await exists(`${DIST}/index.html`);
    await Deno.chmod(dir, 0o555);
    const env: Record<string, string> = {
      APP_ENV: "production",
      KV_PATH: ":memory:",
      PORT: "0",
      ISSUER_KEY: newIssuerKeyText(),
      MAIL_TRANSPORT: "smtp",
      // Nothing listens there: mail waits in the queue, start-up and answers do not.
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: "9",
      PUBLIC_URL: "https://qcard.example.org",
      DEMO_HISTORY: "false",
      PIN_HASH_ITERATIONS: "1000",
      ...(built ? { STATIC_DIR: DIST } : {}),
    };
    // Deno's own cache (npm packages resolve from node_modules: nodeModulesDir "manual").
    for (const v of ["HOME", "DENO_DIR"]) {
      const value = Deno.env.get(v);
      if (value) env[v] = value;
    }
    const p = await startMain(env, {
      cwd: dir,
      args: [`--allow-read=${ROOT}`, "--allow-net", `--allow-env`, "--deny-write"],
    });
    try {
      const base = `http://127.0.0.1:${p.port}`;
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
      const h = await health.json();
      assert.ok(["ok", "degraded"].includes(h.status), JSON.stringify(h));
      assert.ok(health.headers.get("x-request-id"));

      // An API call that reads and writes the (managed) store: a wrong activation code.
      const check = await fetch(`${base}/bonita/scmapi/expense/pwacheckvalidation`, {
        method: "POST",
        headers: { "content-type": "application/json", "device-id": "production-test-device" },
        body: JSON.stringify({ verificationcode: "00000" }),
      });
      const answer = await check.json();
      assert.ok(check.status >= 400 && check.status < 500, `${check.status}`);
      assert.equal(typeof answer.error, "string");

      if (built) {
        const page = await fetch(`${base}/`);
        assert.equal(page.status, 200);
        assert.match(await page.text(), /<html/i);
      } else {
        console.warn(`no built client at ${DIST}: the static part was skipped`);
      }
      // Production refuses the development pages.
      const outbox = await fetch(`${base}/_outbox`);
      await outbox.body?.cancel();
      assert.notEqual(outbox.status, 200);

      assert.deepEqual([...Deno.readDirSync(dir)], [], "nothing was written in the cwd");
      assert.doesNotMatch(p.stderr(), /PermissionDenied|NotCapable|Requires write access/);
      const logged = p.lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
      assert.equal(p.lines.length, logged.length, "every stdout line is JSON in production");
      assert.ok(logged.some((e) => e.msg === "request" && e.path === "/healthz"));

      p.child.kill("SIGTERM");
      const s = await p.status;
      assert.equal(s.code, 0, p.stderr());
      assert.deepEqual([...Deno.readDirSync(dir)], [], "nor at shutdown");
    } finally {
      try {
        p.child.kill("SIGKILL");
      } catch { /* exited */ }
      await p.status;
      await Deno.chmod(dir, 0o755);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
