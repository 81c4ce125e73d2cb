/**
 * main.ts as a subprocess for the operation tests (docs/deploying.md): started with only the env it
 * is given, its stdout lines collected, its port read from the JSON "listening" line.
 */
import { fileURLToPath } from "node:url";
import { newIssuerKeyText } from "../../server/issuer/mod.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface Proc {
  port: number;
  lines: string[];
  /** Resolves with the first stdout line matching `re`. */
  waitLine(re: RegExp, ms?: number): Promise<string>;
  child: Deno.ChildProcess;
  status: Promise<Deno.CommandStatus>;
  stderr: () => string;
}

/**
 * The environment of a main.ts on the KV file `<dir>/qcard.kv` (processes given the same one
 * share the store): development, loopback, port 0, the bare demo organisation, cheap PIN
 * hashing and a fresh ISSUER_KEY.
 */
export function localEnv(dir: string) {
  return {
    APP_ENV: "development",
    KV_PATH: `${dir}/qcard.kv`,
    PORT: "0",
    LISTEN_HOST: "127.0.0.1",
    DEMO_HISTORY: "false",
    PIN_HASH_ITERATIONS: "1000",
    ISSUER_KEY: newIssuerKeyText(),
  };
}

/**
 * Deno as today's Deno Deploy runs it: deno@2.5.0 from npm, installed by `deno task test`
 * into .deploy-runtime/ (tests/deploy/runtime.ts). Not in package.json: 2.5.0's platform
 * packages exist on the registry here for linux-x64 only, which `npm ci` refuses in a lock.
 */
export const DEPLOY_DENO = `${ROOT}.deploy-runtime/node_modules/deno/deno`;
/** The preload that removes KV queues as Deploy and KV Connect do. */
export const NO_QUEUES = `${ROOT}tests/deploy/no_queues.ts`;

/**
 * Starts main.ts with `env` (only it: clearEnv) and waits for its listening line. With
 * QCARD_KV_NO_QUEUES=1 in this process's environment (the Deploy run of `deno task test`),
 * the child runs with KV queues removed too.
 */
export async function startMain(
  env: Record<string, string>,
  opts: { cwd?: string; args?: string[]; deno?: string } = {},
): Promise<Proc> {
  const noQueues = Deno.env.get("QCARD_KV_NO_QUEUES") === "1" &&
    !opts.args?.includes(NO_QUEUES);
  const child = new Deno.Command(opts.deno ?? Deno.execPath(), {
    args: [
      "run",
      "--config",
      `${ROOT}deno.json`,
      ...(noQueues ? ["--preload", NO_QUEUES] : []),
      ...(opts.args ?? ["-A"]),
      `${ROOT}main.ts`,
    ],
    cwd: opts.cwd ?? ROOT,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  let err = "";
  (async () => {
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        for (const w of [...waiters]) {
          if (w.re.test(line)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      }
    }
  })();
  (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) err += chunk;
  })();
  const status = child.status;
  const waitLine = (re: RegExp, ms = 20_000) => {
    const seen = lines.find((l) => re.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`no line ${re} within ${ms} ms; stderr: ${err}\nstdout: ${lines}`)),
        ms,
      );
      waiters.push({ re, resolve: (l) => (clearTimeout(t), resolve(l)) });
      status.then((s) => {
        clearTimeout(t);
        reject(new Error(`exited ${s.code} before ${re}; stderr: ${err}\nstdout: ${lines}`));
      });
    });
  };
  const listening = await waitLine(/"msg":"QCard listening/);
  const port = JSON.parse(listening).port;
  return { port, lines, waitLine, child, status, stderr: () => err };
}

/**
 * Activates `email`'s new device on a running QCard at `base` (its code read from /_outbox,
 * loopback) with PIN 135790: the bearer and device-id headers of that device.
 */
export async function activateThrough(
  base: string,
  email: string,
): Promise<Record<string, string>> {
  const E = "/bonita/scmapi/expense";
  const o = await (await fetch(`${base}/_outbox?to=${encodeURIComponent(email)}`, {
    headers: { accept: "application/json" },
  })).json() as { messages: { text: string }[] };
  const code = /activation code is (\d{5})/.exec(o.messages[0]?.text ?? "")?.[1];
  if (!code) throw new Error(`no activation code for ${email}`);
  const h = { "device-id": `main-${crypto.randomUUID()}`, "content-type": "application/json" };
  const post = (path: string, body: unknown) =>
    fetch(`${base}${E}/${path}`, { method: "POST", headers: h, body: JSON.stringify(body) });
  await (await post("pwacheckvalidation", { verificationcode: code })).arrayBuffer();
  const r = await post("pwaconfirmpin", { verificationcode: code, pin: "135790" });
  const { token } = await r.json() as { token: string };
  return { authorization: `Bearer ${token}`, "device-id": h["device-id"] };
}
