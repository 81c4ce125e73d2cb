/**
 * Replays of the adversarial test's findings (docs/security.md): PINs and tokens — parallel PIN
 * guesses, the old token after a right PIN, no PIN oracle, idle tokens, removed tokens.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";
import { code5, E, from } from "./security_fixture.ts";

const DAY = 86_400_000;

/** Counts PBKDF2 runs (every PIN and answer check is one deriveBits call) during `fn`. */
async function countHashes<T>(fn: () => Promise<T>): Promise<{ result: T; runs: number }> {
  const subtle = crypto.subtle as unknown as { deriveBits: (...a: unknown[]) => unknown };
  const original = subtle.deriveBits;
  let runs = 0;
  subtle.deriveBits = function (this: unknown, ...a: unknown[]) {
    runs++;
    return original.apply(this, a);
  };
  try {
    return { result: await fn(), runs };
  } finally {
    subtle.deriveBits = original;
  }
}

// ---------------------------------------------------------------------------------------------
// Finding 3: PIN counter bypassed by concurrency, and the PIN oracle

Deno.test(
  "[security] 100 parallel PIN guesses: at most 5 evaluated per run of failures, device unregistered",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee, "135790");
    // The attacker holds the token (e.g. a stolen cookie) and guesses PINs in parallel; the
    // right PIN is among them.
    const pins = Array.from({ length: 100 }, (_, i) => i === 50 ? "135790" : `9${code5(i * 17)}`);
    const { result, runs } = await countHashes(() =>
      Promise.all(
        pins.map((pin) =>
          from(api, "203.0.113.9", "pwacheckpinvalid", { token, pin }, { "device-id": deviceId })
        ),
      )
    );
    const statuses = result.map((r) => `${r.status} ${r.json.error ?? "OK"}`);
    for (const r of result) assert.ok(r.status < 500, r.text);
    const evaluated = result.filter((r) => r.json.error === "wrong_pin" || r.status === 200);
    console.log(
      `  100 parallel PIN guesses: ${evaluated.length} evaluated, ${runs} PBKDF2 runs, ` +
        `answers: ${[...new Set(statuses)].join(", ")}`,
    );
    // A right PIN resets the count (spec §9) and the presented token stays honoured until the
    // new one is used, so when it is among the first five evaluated, five more wrong ones can
    // follow it: at most 5 runs without a success, at most 5 + 5 with one, never more.
    const won = result.filter((r) => r.status === 200).length;
    assert.ok(won <= 1, `${won} guesses succeeded`);
    const limit = won ? 2 * 5 : 5;
    assert.ok(runs <= limit, `${runs} PIN hashes were evaluated, the limit is ${limit}`);
    assert.ok(evaluated.length <= limit, `${evaluated.length} guesses were evaluated`);
    // Each count is spent once per run of failures: no 'attemptsLeft' is answered twice
    // between two successes.
    const left = result.filter((r) => r.json.error === "wrong_pin").map((r) => r.json.attemptsLeft);
    for (const n of new Set(left)) {
      const times = left.filter((x) => x === n).length;
      assert.ok(times <= (won ? 2 : 1), `attemptsLeft ${n} answered ${times} times`);
    }
    // Whatever happened to the right PIN, the device ends unregistered: five wrong guesses
    // follow even a success among the first five.
    assert.equal((await api.deps.store.devices.get(deviceId)).value, null);
  }),
);

Deno.test(
  "[security] after a right PIN, the old token (still honoured) buys at most 5 more guesses",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee, "135790");
    const ip = "203.0.113.10";
    const right = await from(api, ip, "pwacheckpinvalid", { token, pin: "135790" }, {
      "device-id": deviceId,
    });
    assert.equal(right.status, 200, right.text);
    // The answer may be lost, so the presented token stays honoured until the new one is used:
    // an attacker holding it gets a fresh count, and no more than that.
    const pins = Array.from({ length: 100 }, (_, i) => `8${code5(i * 31)}`);
    const { result, runs } = await countHashes(() =>
      Promise.all(
        pins.map((pin) =>
          from(api, ip, "pwacheckpinvalid", { token, pin }, { "device-id": deviceId })
        ),
      )
    );
    for (const r of result) assert.ok(r.status === 403, r.text);
    const left = result.filter((r) => r.json.error === "wrong_pin").map((r) => r.json.attemptsLeft);
    console.log(`  after a success, 100 parallel guesses: ${runs} PBKDF2 runs, left ${left}`);
    assert.ok(runs <= 5, `${runs} PIN hashes were evaluated, the limit is 5`);
    assert.deepEqual([...left].sort(), [1, 2, 3, 4]);
    assert.equal((await api.deps.store.devices.get(deviceId)).value, null);
  }),
);

Deno.test(
  "[security] no PIN oracle: without the token the right PIN is answered like any wrong one",
  withApp(async (api) => {
    const { deviceId } = await api.activate(DEMO.employee, "135790");
    const other = await api.activate(DEMO.approver, "135790");
    const answers: string[] = [];
    const { runs } = await countHashes(async () => {
      for (const [token, pin] of [["", "135790"], ["", "975310"], [other.token, "135790"]]) {
        const r = await from(api, "203.0.113.9", "pwacheckpinvalid", { token, pin }, {
          "device-id": deviceId,
        });
        answers.push(`${r.status} ${r.json.error} ${r.json.message}`);
      }
    });
    assert.deepEqual(answers, [
      "403 wrong_pin Wrong PIN",
      "403 wrong_pin Wrong PIN",
      "403 wrong_pin Wrong PIN",
    ]);
    // No token, no hash: the expensive check never runs for a stranger.
    assert.equal(runs, 0);
    // An unknown device costs no hash either.
    const unknown = await countHashes(() =>
      from(api, "203.0.113.9", "pwacheckpinvalid", { token: "", pin: "135790" }, {
        "device-id": api.newDeviceId(),
      })
    );
    assertError(unknown.result, 403, "unregistered");
    assert.equal(unknown.runs, 0);
  }),
);

// ---------------------------------------------------------------------------------------------
// Finding 9: tokens never expired

Deno.test(
  "[security] a bearer token unused for TOKEN_IDLE_DAYS stops working; use keeps it alive",
  withApp(async (api) => {
    const t0 = Date.now();
    const a = await api.activate(DEMO.employee);
    const b = await api.activate(DEMO.approver);
    const lists = (token: string) => api.call("GET", `${E}/pwalists`, { headers: bearer(token) });
    // a is used every 20 days; b is left alone.
    for (let day = 20; day <= 100; day += 20) {
      api.deps.now = () => t0 + day * DAY;
      assertOk(await lists(a.token));
    }
    api.deps.now = () => t0 + 100 * DAY;
    assertError(await lists(b.token), 401, "unauthorized");
    // An idle device cannot come back through the PIN either: it is unregistered.
    assertError(
      await api.call("POST", `${E}/pwacheckpinvalid`, {
        body: { token: b.token, pin: "135790" },
        headers: { "device-id": b.deviceId },
      }),
      403,
      "unregistered",
    );
    assertOk(await lists(a.token));
  }, { TOKEN_IDLE_DAYS: "30" }),
);

Deno.test(
  "[security] a token seen before is checked against the store on every call (removed, it fails); unknown tokens are not remembered",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const lists = (t: string) => api.call("GET", `${E}/pwalists`, { headers: bearer(t) });
    assertOk(await lists(token));
    assertOk(await lists(token)); // the second call reads the token, device and user at once
    const { devices, kv } = api.deps.store;
    const remembered = devices.rememberedTokens;
    assert.ok(remembered >= 1);
    // Anonymous callers with made-up tokens: refused, and nothing kept for them.
    for (let i = 0; i < 50; i++) {
      assertError(await lists(`made-up-token-${i}-${"x".repeat(30)}`), 401);
    }
    assert.equal(devices.rememberedTokens, remembered);
    // The device removed (as a wipe does): its token no longer authenticates.
    const device = (await devices.get(deviceId)).value!;
    assert.ok((await devices.remove(kv.atomic(), device).commit()).ok);
    assertError(await lists(token), 401);
  }),
);
