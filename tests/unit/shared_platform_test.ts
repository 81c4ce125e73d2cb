/**
 * client/shared/ runs on the server (Deno) and in the browser: it may use only what both give —
 * the language (esnext) and the web platform's shared APIs (TextEncoder, atob, URL, WebCrypto) —
 * never the DOM (document, window) nor Deno's namespace. Proved by the type checker, with
 * tests/tools/shared_check.json, which gives exactly those libraries: a module that reaches for
 * anything else does not compile there. (The probe below shows the check refuses both.)
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;

async function check(target: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--config", "tests/tools/shared_check.json", target],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, text: new TextDecoder().decode(out.stderr) };
}

Deno.test("[shared] client/shared type-checks with the web platform only: no DOM, no Deno", async () => {
  const r = await check("client/shared/");
  assert.equal(r.code, 0, r.text.slice(0, 4000));
});

Deno.test("[shared] the check refuses the DOM and Deno's namespace", async () => {
  // Outside the repository, so no other test that reads client/ meets it.
  const dir = await Deno.makeTempDir({ prefix: "qcard-platform-probe-" });
  const probe = `${dir}/probe.ts`;
  await Deno.writeTextFile(
    probe,
    'export const a = () => document.title;\nexport const b = () => Deno.env.get("X");\n',
  );
  try {
    const r = await check(probe);
    assert.notEqual(r.code, 0);
    assert.match(r.text, /Cannot find name 'document'/);
    assert.match(r.text, /Cannot find name 'Deno'/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
