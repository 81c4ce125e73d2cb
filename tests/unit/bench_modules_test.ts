/**
 * The benchmarks (`deno task bench`, tests/bench/) are not tests, so `deno test` does not type-check
 * them; they import the browser tests' helpers, which move. Checked here, so a bench that no longer
 * compiles fails the test command instead of the next person who runs it.
 */
import assert from "node:assert/strict";

Deno.test("[bench] every benchmark module type-checks", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "tests/bench/"],
    cwd: new URL("../../", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, text.slice(0, 4000));
});
