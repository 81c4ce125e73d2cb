/**
 * Registration (spec §4, §5, §7 'Registration and session', §8, §9): activation with a mailed
 * code, PIN rules, lost activation and their rate limits. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, withApp, wrongCodes } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";
import {
  assertRefusesBadInput,
  checkValidation,
  codesFor,
  confirmPin,
  DAY,
  dev,
  E,
  REPETITION,
  SEQUENCE,
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

// ---------------------------------------------------------------------------------------------
// pwaconfirmpin

Deno.test(
  "[session] pwaconfirmpin activates the device and returns a new token and useEnc",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    const v = await checkValidation(api, id, code);
    assertOk(v);
    const p = await confirmPin(api, id, code, "135790");
    assertOk(p);
    assert.equal(p.json.useEnc, true);
    assert.match(String(p.json.token), /^[A-Za-z0-9_-]{22,}$/);
    assert.notEqual(p.json.token, v.json.token, "the pending token must be replaced");
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(String(p.json.token)) }));
    // The pending token died with the pending state.
    assertError(
      await api.call("GET", `${E}/pwalists`, { headers: bearer(String(v.json.token)) }),
      401,
    );
  }),
);

Deno.test(
  "[session] pwaconfirmpin refuses missing, mistyped and malformed input",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    await assertRefusesBadInput(api, `${E}/pwaconfirmpin`, {
      verificationcode: code,
      pin: "135790",
    }, [
      { verificationcode: code, pin: 135790 },
      { verificationcode: code, pin: "13579" },
      { verificationcode: code, pin: "1357900" },
      { verificationcode: code, pin: "13579a" },
      { verificationcode: code, pin: "" },
      { verificationcode: Number(code), pin: "135790" },
    ]);
  }),
);

Deno.test(
  "[session] pwaconfirmpin without a prior pwacheckvalidation is refused",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    assertError(await confirmPin(api, id, code, "135790"), 400, "invalid_code");
    // The code was not consumed by the refused attempt.
    assertOk(await checkValidation(api, id, code));
    assertOk(await confirmPin(api, id, code, "135790"));
  }),
);

Deno.test(
  "[session] pwaconfirmpin with a wrong code is refused and the device stays pending",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const other = await api.latestCode(DEMO.approver);
    const id = api.newDeviceId();
    const v = await checkValidation(api, id, code);
    assertOk(v);
    assertError(await confirmPin(api, id, other, "135790"), 400, "invalid_code");
    assertError(
      await confirmPin(api, id, (await wrongCodes(api, 1))[0], "135790"),
      400,
      "invalid_code",
    );
    assertError(
      await api.call("GET", `${E}/pwalists`, { headers: bearer(String(v.json.token)) }),
      401,
    );
    assertOk(await confirmPin(api, id, code, "135790"));
  }),
);

Deno.test(
  "[session] pwaconfirmpin refuses a code that expired after it was checked",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    assertOk(await checkValidation(api, id, code));
    const t0 = Date.now();
    api.deps.now = () => t0 + 3 * DAY + 60_000;
    assertError(await confirmPin(api, id, code, "135790"), 400, "invalid_code");
  }),
);

Deno.test(
  "[session] pwaconfirmpin refuses repeated PINs with 422 and the spec's repetition message",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    assertOk(await checkValidation(api, id, code));
    for (const pin of ["111111", "111123", "901111", "121212", "123123", "000000"]) {
      assertError(await confirmPin(api, id, code, pin), 422, "pin_repetition", REPETITION);
    }
    // Refusals do not consume the code: a good PIN still activates.
    assertOk(await confirmPin(api, id, code, "111222"));
  }),
);

Deno.test(
  "[session] pwaconfirmpin refuses straight sequences with 422 and the spec's sequence message",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    assertOk(await checkValidation(api, id, code));
    for (const pin of ["123456", "012345", "890123", "987654", "543210", "210987"]) {
      assertError(await confirmPin(api, id, code, pin), 422, "pin_sequence", SEQUENCE);
    }
    assertOk(await confirmPin(api, id, code, "246802"));
  }),
);

// ---------------------------------------------------------------------------------------------
// Lost activation: pwaactivationemail and pwasecretanswer

Deno.test(
  "[session] pwaactivationemail for an unknown email answers like a known one, the same each time",
  withApp(async (api) => {
    const ask = async (email: string) =>
      await api.call("POST", `${E}/pwaactivationemail`, {
        body: { email },
        headers: dev(api.newDeviceId()),
      });
    const r = await ask("nobody@demo.example");
    assertOk(r);
    const q = r.json.question as Record<string, unknown>;
    const ids = (await api.deps.store.org.secretQuestions()).map((x) => x.oid);
    assert.ok(ids.includes(String(q.id)), `a question of the organisation, not ${q.id}`);
    assert.deepEqual(Object.keys(q).sort(), ["id", "key", "text"]);
    assert.deepEqual((await ask("NOBODY@demo.example")).json, r.json);
    // 'No previous activation found' is said only when no question exists at all.
    for await (const e of api.kv.list({ prefix: ["secretq"] })) await api.kv.delete(e.key);
    assertError(await ask(DEMO.employee), 404, "no_previous_activation");
    assertError(await ask("nobody@demo.example"), 404, "no_previous_activation");
  }),
);

Deno.test(
  "[session] pwaactivationemail for a known email returns its secret question {id, key, text}",
  withApp(async (api) => {
    const r = await api.call("POST", `${E}/pwaactivationemail`, {
      body: { email: "  Employee@Demo.Example " },
      headers: dev(api.newDeviceId()),
    });
    assertOk(r);
    assert.deepEqual(r.json, {
      question: { id: "q-birth-city", key: "birthCity", text: "In which city were you born?" },
    });
    const r2 = await api.call("POST", `${E}/pwaactivationemail`, {
      body: { email: DEMO.approver },
      headers: dev(api.newDeviceId()),
    });
    assertOk(r2);
    assert.equal((r2.json.question as Record<string, unknown>).id, "q-first-pet");
  }),
);

Deno.test(
  "[session] pwaactivationemail refuses missing, mistyped, too short and malformed input",
  withApp(async (api) => {
    await assertRefusesBadInput(api, `${E}/pwaactivationemail`, { email: DEMO.employee }, [
      { email: "a@b" },
      { email: "    a@b    " },
      { email: `${"x".repeat(250)}@d.example` },
    ]);
  }),
);

Deno.test(
  "[session] activation-email requests are not limited per address: strangers cannot lock it",
  withApp(async (api) => {
    for (let i = 0; i < 30; i++) {
      assertOk(
        await api.call("POST", `${E}/pwaactivationemail`, {
          body: { email: DEMO.employee },
          headers: dev(api.newDeviceId()),
        }),
      );
    }
  }),
);

Deno.test(
  "[session] one device probing many emails is limited to 10 requests an hour",
  withApp(async (api) => {
    const id = api.newDeviceId();
    for (let i = 0; i < 10; i++) {
      const r = await api.call("POST", `${E}/pwaactivationemail`, {
        body: { email: `probe${i}@demo.example` },
        headers: dev(id),
      });
      assertOk(r);
    }
    assertError(
      await api.call("POST", `${E}/pwaactivationemail`, {
        body: { email: DEMO.employee },
        headers: dev(id),
      }),
      429,
      "rate_limited",
    );
  }),
);

Deno.test(
  "[session] pwasecretanswer: a wrong answer gets 400 'Something went wrong' and mails nothing",
  withApp(async (api) => {
    const before = (await codesFor(api, DEMO.employee)).length;
    const id = api.newDeviceId();
    const wrongs = [
      { email: DEMO.employee, answer: "london", questOid: "q-birth-city" },
      // The right answer to the wrong question.
      { email: DEMO.employee, answer: "paris", questOid: "q-first-pet" },
      // Another user's right answer.
      { email: DEMO.employee, answer: "rex", questOid: "q-first-pet" },
      // An unknown email looks the same as a wrong answer.
      { email: "nobody@demo.example", answer: "paris", questOid: "q-birth-city" },
      // Spaces inside the answer are not dropped.
      { email: DEMO.employee, answer: "pa ris", questOid: "q-birth-city" },
    ];
    for (const body of wrongs) {
      assertError(
        await api.call("POST", `${E}/pwasecretanswer`, { body, headers: dev(id) }),
        400,
        "wrong_answer",
        "Something went wrong",
      );
    }
    assert.equal((await codesFor(api, DEMO.employee)).length, before);
  }),
);

Deno.test(
  "[session] pwasecretanswer: the right answer (any case, outer spaces) mails a new code that activates",
  withApp(async (api) => {
    const old = await codesFor(api, DEMO.employee);
    assert.equal(old.length, 1);
    const id = api.newDeviceId();
    const r = await api.call("POST", `${E}/pwasecretanswer`, {
      body: { email: " EMPLOYEE@demo.example ", answer: "  PaRiS  ", questOid: "q-birth-city" },
      headers: dev(id),
    });
    assertOk(r);
    assert.equal(
      r.json.message,
      "A new activation email has been sent. Enter its code to activate this device.",
    );
    const fresh = (await codesFor(api, DEMO.employee)).filter((c) => !old.includes(c));
    assert.equal(fresh.length, 1, "exactly one new code is mailed");
    // The old code is revoked, and the new one is bound to the device that asked for it.
    assertError(await checkValidation(api, api.newDeviceId(), old[0]), 400, "invalid_code");
    assertError(await checkValidation(api, api.newDeviceId(), fresh[0]), 400, "invalid_code");
    const v = await checkValidation(api, id, fresh[0]);
    assertOk(v);
    assert.equal(v.json.fname, "Emma");
    const p = await confirmPin(api, id, fresh[0], "135790");
    assertOk(p);
    const lists = await api.call("GET", `${E}/pwalists`, { headers: bearer(String(p.json.token)) });
    assertOk(lists);
    assert.equal(lists.json.username, DEMO.employee);
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
