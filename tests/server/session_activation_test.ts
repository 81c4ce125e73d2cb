/**
 * This file: pwacheckvalidation and its limits (the same subject goes on in
 * session_confirm_test.ts).
 *
 * Registration (spec §4, §5, §7 'Registration and session', §8, §9): activation with a mailed
 * code, PIN rules, lost activation and their rate limits. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, withApp, wrongCodes } from "../helpers.ts";
import { assertError, assertOk } from "./api.ts";
import {
  assertRefusesBadInput,
  checkValidation,
  confirmPin,
  DAY,
  dev,
  E,
} from "./session_fixture.ts";

// ---------------------------------------------------------------------------------------------
// pwacheckvalidation

Deno.test(
  "[session] pwacheckvalidation accepts the mailed code and returns a pending token and the first name",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const r = await api.call("POST", `${E}/pwacheckvalidation`, {
      body: { verificationcode: code },
      headers: { ...dev(api.newDeviceId()), screenW: "390", screenH: "844" },
    });
    assertOk(r);
    assert.equal(r.json.status, "OK");
    assert.equal(r.json.fname, "Emma");
    assert.match(String(r.json.token), /^[A-Za-z0-9_-]{22,}$/);
    assert.equal(r.res.headers.get("content-type")?.startsWith("application/json"), true);
  }),
);

Deno.test(
  "[session] pwacheckvalidation refuses missing, mistyped and malformed input",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    await assertRefusesBadInput(api, `${E}/pwacheckvalidation`, { verificationcode: code }, [
      { verificationcode: Number(code) },
      { verificationcode: "1234" },
      { verificationcode: "123456" },
      { verificationcode: "12a45" },
      { verificationcode: " 12345" },
      { verificationcode: true },
    ]);
    // None of this consumed the code: it still works.
    assertOk(await checkValidation(api, api.newDeviceId(), code));
  }),
);

Deno.test(
  "[session] pwacheckvalidation refuses a wrong code with 400 invalid_code",
  withApp(async (api) => {
    const [wrong] = await wrongCodes(api, 1);
    const r = await checkValidation(api, api.newDeviceId(), wrong);
    assertError(r, 400, "invalid_code", "This activation code is not valid");
    assert.equal(r.json.token, undefined);
  }),
);

Deno.test(
  "[session] pwacheckvalidation refuses a code older than CODE_TTL_MINUTES (1 day by default)",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const t0 = Date.now();
    api.deps.now = () => t0 + DAY - 60_000; // one minute before expiry: still valid
    assertOk(await checkValidation(api, api.newDeviceId(), code));
    const code2 = await api.latestCode(DEMO.approver);
    api.deps.now = () => t0 + DAY + 60_000;
    assertError(await checkValidation(api, api.newDeviceId(), code2), 400, "invalid_code");
  }),
);

Deno.test(
  "[session] CODE_TTL_MINUTES from config sets the code lifetime",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const t0 = Date.now();
    api.deps.now = () => t0 + 11 * 60_000;
    assertError(await checkValidation(api, api.newDeviceId(), code), 400, "invalid_code");
  }, { CODE_TTL_MINUTES: "10" }),
);

Deno.test(
  "[session] another device replaying a claimed code is refused",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const a = api.newDeviceId(), b = api.newDeviceId();
    assertOk(await checkValidation(api, a, code));
    assertError(await checkValidation(api, b, code), 400, "invalid_code");
    assertError(await confirmPin(api, b, code, "135790"), 400, "invalid_code");
    // The claiming device can still finish.
    assertOk(await confirmPin(api, a, code, "135790"));
  }),
);

Deno.test(
  "[session] a code is single use: after confirm the same code is refused on every device",
  withApp(async (api) => {
    const { code, deviceId } = await api.activate(DEMO.employee);
    // The activated device is refused before any code is looked at.
    assertError(await checkValidation(api, deviceId, code), 403, "already_active");
    assertError(await confirmPin(api, deviceId, code, "135790"), 400, "invalid_code");
    assertError(await checkValidation(api, api.newDeviceId(), code), 400, "invalid_code");
  }),
);

Deno.test(
  "[session] pwacheckvalidation on an already active device is refused",
  withApp(async (api) => {
    const { deviceId } = await api.activate(DEMO.employee);
    const code = await api.latestCode(DEMO.approver);
    assertError(await checkValidation(api, deviceId, code), 403, "already_active");
  }),
);

Deno.test(
  "[session] code brute force: after 10 wrong codes from one device even the right code gets 429",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    for (const wrong of await wrongCodes(api, 10)) {
      assertError(await checkValidation(api, id, wrong), 400, "invalid_code");
    }
    assertError(await checkValidation(api, id, code), 429, "rate_limited");
    // The ten wrong codes spent the organisation's daily budget (ACTIVATION_CHECKS_PER_DAY,
    // 10): the rightful owner on another device is not refused, the code is replaced by
    // one bound to that device and mailed, and that one activates.
    const owner = api.newDeviceId();
    assertError(await checkValidation(api, owner, code), 403, "code_resent");
    const bound = await api.latestCode(DEMO.employee);
    assert.notEqual(bound, code);
    assertOk(await checkValidation(api, owner, bound));
    assertOk(await confirmPin(api, owner, bound, "135790"));
  }),
);

Deno.test(
  "[session] code brute force: 9 wrong codes still let the right code through",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    for (const wrong of await wrongCodes(api, 9)) {
      assertError(await checkValidation(api, id, wrong), 400, "invalid_code");
    }
    assertOk(await checkValidation(api, id, code));
  }),
);

Deno.test(
  "[session] past the org budget, checks from one address are throttled; the owner elsewhere is not",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const env = { remoteAddr: { hostname: "203.0.113.7" } };
    const send = (id: string, c: string, addr = env) =>
      api.app.request(`/bonita${E}/pwacheckvalidation`, {
        method: "POST",
        headers: { "content-type": "application/json", ...dev(id) },
        body: JSON.stringify({ verificationcode: c }),
      }, addr);
    // 10 within the organisation's budget, then 20 more from this address in safe mode.
    for (const wrong of await wrongCodes(api, 30)) {
      // A fresh device id each time, so only the budget and the address counter grow.
      assert.equal((await send(api.newDeviceId(), wrong)).status, 400);
    }
    // Throttled: answered blind (a code for this device is mailed if this one was right).
    const throttled = await send(api.newDeviceId(), code);
    assert.equal(throttled.status, 403);
    assert.equal((await throttled.json()).error, "code_sent_if_right");
    // The right code from elsewhere is not refused: it is replaced by a device-bound one.
    const owner = api.newDeviceId();
    const elsewhere = await send(owner, code, { remoteAddr: { hostname: "198.51.100.1" } });
    assert.equal(elsewhere.status, 403);
    assert.equal((await elsewhere.json()).error, "code_resent");
    const bound = await api.latestCode(DEMO.employee);
    assert.equal((await send(owner, bound, env)).status, 200, "bound codes ignore the throttle");
  }),
);

Deno.test({
  name:
    "[session] code brute force: concurrent wrong codes from one device cannot exceed the limit",
  // Attempts are counted atomically before they are evaluated: a parallel burst gets no
  // more guesses than a sequential one.
  fn: withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    const burst = await wrongCodes(api, 40);
    const rs = await Promise.all(burst.map((c) => checkValidation(api, id, c)));
    // Each answer as "status error", and how many of each (printed on any failure).
    const answers = rs.map((r) =>
      `${r.status} ${typeof r.json?.error === "string" ? r.json.error : r.text.slice(0, 80)}`
    );
    const tally = new Map<string, number>();
    for (const a of answers) tally.set(a, (tally.get(a) ?? 0) + 1);
    const seen = [...tally].map(([a, n]) => `${n} × ${a}`).join(", ");
    // The answers of a code that was evaluated: wrong (within the organisation's budget),
    // or past it, answered alike for right and wrong codes.
    const evaluatedAnswers = new Set([
      "400 invalid_code",
      "403 code_resent",
      "403 code_sent_if_right",
    ]);
    for (const a of answers) {
      assert.ok(
        a === "429 rate_limited" || evaluatedAnswers.has(a),
        `an answer neither refused nor evaluated: ${a}; the 40 answers: ${seen}`,
      );
    }
    const evaluated = answers.filter((a) => evaluatedAnswers.has(a)).length;
    assert.ok(
      evaluated <= 10,
      `${evaluated} codes were evaluated, the limit is 10; the 40 answers: ${seen}`,
    );
    assertError(await checkValidation(api, id, code), 429, "rate_limited");
  }),
});

Deno.test(
  "[session] concurrent claims of one code: exactly one device wins, the others are refused",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const ids = Array.from({ length: 5 }, () => api.newDeviceId());
    const rs = await Promise.all(ids.map((id) => checkValidation(api, id, code)));
    const winners = rs.filter((r) => r.status === 200);
    assert.equal(winners.length, 1, rs.map((r) => r.status).join(" "));
    for (const r of rs.filter((r) => r.status !== 200)) {
      assert.ok([400, 409].includes(r.status), r.text);
      assertError(r, r.status);
    }
    const winner = ids[rs.indexOf(winners[0])];
    assertOk(await confirmPin(api, winner, code, "135790"));
  }),
);

Deno.test(
  "[session] pwasecretanswer refuses missing, mistyped and malformed input",
  withApp(async (api) => {
    await assertRefusesBadInput(
      api,
      `${E}/pwasecretanswer`,
      { email: DEMO.employee, answer: "paris", questOid: "q-birth-city" },
      [
        { email: DEMO.employee, answer: "   ", questOid: "q-birth-city" },
        { email: DEMO.employee, answer: "paris", questOid: "" },
        { email: DEMO.employee, answer: "x".repeat(201), questOid: "q-birth-city" },
        { email: "a@b", answer: "paris", questOid: "q-birth-city" },
      ],
    );
  }),
);

Deno.test(
  "[session] secret answers: 5 tries per device and address an hour, then blind past 20 a day",
  withApp(async (api) => {
    const answer = (id: string, a: string) =>
      api.call("POST", `${E}/pwasecretanswer`, {
        body: { email: DEMO.employee, answer: a, questOid: "q-birth-city" },
        headers: dev(id),
      });
    const one = api.newDeviceId();
    for (let i = 0; i < 5; i++) assertError(await answer(one, `guess${i}`), 400, "wrong_answer");
    // That device is slowed down; nobody else is.
    assertError(await answer(one, "paris"), 429, "rate_limited");
    for (let i = 5; i < 20; i++) {
      assertError(await answer(api.newDeviceId(), `guess${i}`), 400, "wrong_answer");
    }
    // Past the address's daily budget, right and wrong answers look the same...
    const blindWrong = await answer(api.newDeviceId(), "london");
    const owner = api.newDeviceId();
    const blindRight = await answer(owner, "paris");
    assertOk(blindWrong);
    assertOk(blindRight);
    assert.deepEqual(blindWrong.json, blindRight.json);
    // ...but the right one still mails the owner a code bound to their device.
    const code = await api.latestCode(DEMO.employee);
    assertOk(await checkValidation(api, owner, code));
  }),
);
