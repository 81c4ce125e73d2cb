/**
 * This file: 3-D Secure settings, wallet rows (the same subject goes on in cards_test.ts).
 *
 * Virtual cards and 3-D Secure (spec §2, §3 Card and Secure settings, §4, §6, §7):
 * generation on the embedded issuer simulator, the masked card, reveals sealed for the
 * device's key, freeze/unfreeze/close and the request flags they change, the secure settings
 * flow with its emailed or texted PIN. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { newRevealKey, openWithKey } from "../../client/shared/reveal_cipher.ts";
import { PASSWORD_PLACEHOLDER } from "../../client/shared/secure_rules.ts";
import type { Card } from "../../client/shared/contract/cards.ts";
import type { ExpenseRow } from "../../client/shared/contract/requests.ts";
import { buy } from "./purchase_helpers.ts";
import { assertError, assertOk, bearer, login } from "./api.ts";
import { accepted, defineSecure, E, get, latestPin, post, SECURE } from "./cards_helpers.ts";

const MIN = 60_000;

// ---------------------------------------------------------------------------------------------
// 3-D Secure settings

Deno.test(
  "[secure] save answers requirePin; a wrong PIN is pinOk false; the right one defines it",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const read0 = await get(api, emp.h, "pwaexpensecardsecure");
    assertOk(read0);
    assert.deepEqual(read0.json.secure, {
      password: "",
      countryPrefix: "",
      phoneNumber: "",
      requirePin: false,
      defined: false,
    });
    const s = await post(api, emp.h, "pwasetexpensedosecure", { record: SECURE });
    assertOk(s);
    assert.equal(s.json.requirePin, true);
    const pin = await latestPin(api, "+33612345678");
    const wrong = pin === "0000" ? "0001" : "0000";
    const w = await post(api, emp.h, "pwaexpensedosecurevalidatepin", { pin: wrong });
    assertOk(w);
    assert.deepEqual(w.json, { pinOk: false, attemptsLeft: 2 });
    const ok = await post(api, emp.h, "pwaexpensedosecurevalidatepin", { pin });
    assert.deepEqual(ok.json, { pinOk: true, attemptsLeft: 3 });
    const read = (await get(api, emp.h, "pwaexpensecardsecure")).json.secure as Record<
      string,
      unknown
    >;
    assert.equal(read.password, PASSWORD_PLACEHOLDER, "never the password itself");
    assert.equal(read.defined, true);
    assert.equal(read.phoneNumber, "612345678");
    // The stored password comes back only sealed for the device's key.
    const key = newRevealKey();
    const r = await get(api, emp.h, `pwareveal3ds?key=${key}`);
    assertOk(r);
    assert.ok(!r.text.includes(SECURE.password));
    assert.equal(await openWithKey(key, String(r.json.decryptpwd)), SECURE.password);
    // Saving with the placeholder and the same phone changes nothing and needs no PIN.
    const same = await post(api, emp.h, "pwasetexpensedosecure", {
      record: { ...SECURE, password: PASSWORD_PLACEHOLDER },
    });
    assert.equal(same.json.requirePin, false);
  }),
);

Deno.test(
  "[secure] an expired PIN (after 5 minutes) and a third wrong try drop the change",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const t0 = Date.now();
    api.deps.now = () => t0;
    assertOk(await post(api, emp.h, "pwasetexpensedosecure", { record: SECURE }));
    const pin = await latestPin(api, "+33612345678");
    api.deps.now = () => t0 + 5 * MIN + 1000;
    assert.deepEqual(
      (await post(api, emp.h, "pwaexpensedosecurevalidatepin", { pin })).json,
      { pinOk: false, attemptsLeft: 0 },
    );
    const read = await get(api, emp.h, "pwaexpensecardsecure");
    assert.equal((read.json.secure as { defined: boolean }).defined, false);
    // A new save, three wrong tries: the right PIN no longer works.
    api.deps.now = () => t0 + 10 * MIN;
    assertOk(await post(api, emp.h, "pwasetexpensedosecure", { record: SECURE }));
    const pin2 = await latestPin(api, "+33612345678");
    const wrong = pin2 === "1111" ? "2222" : "1111";
    for (const left of [2, 1, 0]) {
      const w = await post(api, emp.h, "pwaexpensedosecurevalidatepin", { pin: wrong });
      assert.deepEqual(w.json, { pinOk: false, attemptsLeft: left });
    }
    assert.equal(
      (await post(api, emp.h, "pwaexpensedosecurevalidatepin", { pin: pin2 })).json.pinOk,
      false,
    );
  }),
);

Deno.test(
  "[secure] every §5 rule: password 4–30 of the allowed set, prefix, phone digits ≥ 6",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    for (
      const [record, code] of [
        [{ ...SECURE, password: "abc" }, "secure_password"],
        [{ ...SECURE, password: "x".repeat(31) }, "secure_password"],
        [{ ...SECURE, password: "pass word" }, "secure_password"],
        [{ ...SECURE, password: PASSWORD_PLACEHOLDER }, "secure_password"],
        [{ ...SECURE, countryPrefix: "33a" }, "secure_prefix"],
        [{ ...SECURE, phoneNumber: "12345" }, "secure_phone"],
        [{ ...SECURE, phoneNumber: "06 12 34" }, "secure_phone"],
      ] as const
    ) {
      assertError(await post(api, emp.h, "pwasetexpensedosecure", { record }), 422, code);
    }
    assertError(await api.call("GET", `${E}/pwaexpensecardsecure`), 401);
    assertError(await get(api, bearer("A".repeat(43)), "pwaexpensecardsecure"), 401);
  }),
);

Deno.test(
  "[secure] without an SMS transport the PIN goes by email",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    assertOk(await post(api, emp.h, "pwasetexpensedosecure", { record: SECURE }));
    // No SMS provider: the PIN is mailed (read from the outbox's record of it).
    let pin = "";
    for await (
      const e of api.kv.list<{ purpose?: string; channel: string; to: string; text: string }>({
        prefix: ["msg"],
      })
    ) {
      if (e.value?.purpose === "3ds-pin") {
        assert.equal(e.value.channel, "email");
        assert.equal(e.value.to, DEMO.employee);
        pin = /PIN is (\d{4})/.exec(e.value.text)?.[1] ?? "";
      }
    }
    assert.match(pin, /^\d{4}$/);
    assert.equal(
      (await post(api, emp.h, "pwaexpensedosecurevalidatepin", { pin })).json.pinOk,
      true,
    );
  }, { SMS_TRANSPORT: "none" }),
);

Deno.test(
  "[cards] wallet rows carry what is left on each open card, nothing once the card is closed",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const oid = await accepted(api, emp.h);
    const bare = await accepted(api, emp.h, { purpose: "No card yet" });
    assertOk(await post(api, emp.h, "pwanewqcard", { oid }));
    const b = await buy(
      api,
      (await get(api, emp.h, `pwaexpensecard?oid=${oid}`)).json.card as Card,
      {
        amount: "20.00",
      },
    );
    assert.equal(b.approved, true);
    const rows = async () => {
      const l = await get(api, emp.h, "pwalists");
      assertOk(l);
      return (l.json.expenses as { expenseslist: ExpenseRow[] }).expenseslist;
    };
    // spec §2 Wallet: 120.50 requested, 20.00 spent: 100.50 left (not the request's amount).
    let list = await rows();
    assert.equal(list.find((r) => r.oid === oid)?.cardAvailable, 100.5);
    assert.equal(list.find((r) => r.oid === oid)?.amount, 120.5);
    assert.equal(list.find((r) => r.oid === bare)?.cardAvailable, undefined);
    // Blocked: still what is left; closed: nothing that looks spendable.
    assertOk(await post(api, emp.h, "pwafreezecard", { oid }));
    assert.equal((await rows()).find((r) => r.oid === oid)?.cardAvailable, 100.5);
    assertOk(await post(api, emp.h, "pwaunfreezecard", { oid }));
    assertOk(await post(api, emp.h, "pwaclose", { oid }));
    list = await rows();
    assert.equal(list.find((r) => r.oid === oid)?.cardAvailable ?? null, null);
  }),
);
