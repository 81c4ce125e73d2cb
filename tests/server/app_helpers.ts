/** Helpers shared by the app tests (app_test.ts, app_static_test.ts). */
import assert from "node:assert/strict";
import { type TestApi } from "../helpers.ts";

export const E = "/scmapi/expense";

/**
 * Asserts the security headers every answer must carry. `scripts`: the `'sha256-…'` of the
 * inline scripts the page may run (the static shells' boot script), else none.
 */
export function assertSecurityHeaders(res: Response, what: string, scripts: string[] = []) {
  const csp = res.headers.get("content-security-policy");
  assert.ok(csp, `${what}: no Content-Security-Policy`);
  const directives = new Map(
    csp.split(";").map((d) => d.trim()).filter(Boolean).map((d) => {
      const [name, ...values] = d.split(/\s+/);
      return [name.toLowerCase(), values] as const;
    }),
  );
  assert.ok(!csp.includes("'unsafe-inline'"), `${what}: CSP allows unsafe-inline: ${csp}`);
  assert.ok(!csp.includes("'unsafe-eval'"), `${what}: CSP allows unsafe-eval: ${csp}`);
  assert.deepEqual(
    directives.get("script-src"),
    ["'self'", ...scripts],
    `${what}: script-src in ${csp}`,
  );
  assert.deepEqual(
    directives.get("frame-ancestors"),
    ["'none'"],
    `${what}: frame-ancestors in ${csp}`,
  );
  assert.ok(directives.has("default-src"), `${what}: no default-src in ${csp}`);
  assert.deepEqual(directives.get("object-src"), ["'none'"], `${what}: object-src in ${csp}`);

  const hsts = res.headers.get("strict-transport-security") ?? "";
  const maxAge = Number(/max-age=(\d+)/.exec(hsts)?.[1] ?? 0);
  assert.ok(maxAge >= 31_536_000, `${what}: HSTS max-age below one year: '${hsts}'`);
  assert.match(hsts, /includeSubDomains/i, `${what}: HSTS`);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff", `${what}: nosniff`);
  assert.match(
    res.headers.get("referrer-policy") ?? "",
    /^(no-referrer|same-origin|strict-origin|strict-origin-when-cross-origin)$/,
    `${what}: Referrer-Policy`,
  );
  assert.equal(res.headers.get("x-frame-options"), "DENY", `${what}: X-Frame-Options`);
}

export type Res = Awaited<ReturnType<TestApi["call"]>>;

export function assertErrorBody(r: Res, status: number, error?: string) {
  assert.equal(r.status, status, r.text);
  assert.match(r.res.headers.get("content-type") ?? "", /^application\/json/);
  assert.equal(typeof r.json?.error, "string", r.text);
  assert.equal(typeof r.json?.message, "string", r.text);
  if (error) assert.equal(r.json.error, error);
}

/** A GET outside /bonita (the helper's `call` always prefixes /bonita). */
/** A GET as a caller on this machine (loopback), the only one development pages answer. */
export const LOCAL = { remoteAddr: { hostname: "127.0.0.1" } };

export async function get(api: TestApi, path: string, headers: Record<string, string> = {}) {
  const res = await api.app.request(path, { headers }, LOCAL);
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, res, text, json: json as Record<string, unknown> };
}

// ---------------------------------------------------------------------------------------------
// Static serving

/** A throw-away static dir with a shell, a hashed asset, a service worker and a secret beside it. */
export async function staticFixture() {
  const root = await Deno.makeTempDir({ prefix: "qcard-static-" });
  const dir = `${root}/www`;
  await Deno.mkdir(`${dir}/assets`, { recursive: true });
  await Deno.writeTextFile(`${dir}/index.html`, "<!doctype html><title>QCard shell</title>");
  await Deno.writeTextFile(`${dir}/assets/app-3f2a1b.js`, "console.log('app');");
  await Deno.writeTextFile(`${dir}/sw.js`, "self.addEventListener('fetch', () => {});");
  await Deno.writeTextFile(`${dir}/manifest.webmanifest`, '{"name":"QCard"}');
  await Deno.writeTextFile(`${root}/secret.json`, '{"secret":"do-not-serve"}');
  return { root, dir, cleanup: () => Deno.remove(root, { recursive: true }) };
}
