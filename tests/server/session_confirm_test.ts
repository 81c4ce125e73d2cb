/**
 * This file: pwaconfirmpin, pwaactivationemail, pwasecretanswer (the same subject goes on in
 * session_activation_test.ts).
 *
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
