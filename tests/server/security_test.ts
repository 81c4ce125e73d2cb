/**
 * Replays of the adversarial test's findings (docs/security.md), each of which must now fail to
 * exploit: activation — the device-rotating code brute force, the per-address lockout, the mailed
 * step past a throttled address, user enumeration, lost-activation lockout. (PINs and tokens:
 * security_pin_test.ts; development pages and bodies: security_surface_test.ts.) In-process
 * through app.request, with the client address given as Deno.serve gives it.
 */
import assert from "node:assert/strict";
import { allCodes, DEMO, type TestApi, withApp, wrongCodes } from "../helpers.ts";
import { CODE_LIMITS } from "../../server/domain/code_check.ts";
import { sha256 } from "../../server/secrets.ts";
import { assertError, assertOk, type Res } from "./api.ts";
import { code5, from } from "./security_fixture.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Past the budget and the address's share: 10 + 20 wrong codes from `addr`, rotating ids. */
async function throttle(api: TestApi, addr: string) {
  const budget = api.deps.config.ACTIVATION_CHECKS_PER_DAY;
  for (const wrong of await wrongCodes(api, budget + CODE_LIMITS.overflowPerAddress)) {
    const r = await from(api, addr, "pwacheckvalidation", { verificationcode: wrong }, {
      "device-id": api.newDeviceId(),
    });
    assertError(r, 400, "invalid_code");
  }
}

/** The newest code mailed to `email`, in any language (director@ reads French). */
async function newestCode(api: TestApi, email: string): Promise<string> {
  const [m] = await api.deps.outbox!.list({ to: email, limit: 1 });
  const code = /\b(\d{5})\b/.exec(m?.text ?? "")?.[1];
  if (!code) throw new Error(`no activation code mailed to ${email}`);
  return code;
}

const mailsTo = async (api: TestApi, email: string) =>
  (await api.deps.outbox!.list({ to: email, limit: 1000 })).length;

Deno.test(
  "[security] past the budget and 30 wrong codes from one address, manager@'s and director@'s right codes from it still activate (after a mailed code)",
  withApp(async (api) => {
    const nat = "192.0.2.77";
    await throttle(api, nat);
    // A stranger's next wrong code: the blind answer, and no mail to anyone.
    const mailsBefore = (await api.deps.outbox!.list({ limit: 10_000 })).length;
    const [wrong] = await wrongCodes(api, 1);
    const miss = await from(api, nat, "pwacheckvalidation", { verificationcode: wrong }, {
      "device-id": api.newDeviceId(),
    });
    assertError(miss, 403, "code_sent_if_right", /If this code was right/);
    assert.equal((await api.deps.outbox!.list({ limit: 10_000 })).length, mailsBefore);
    for (const email of [DEMO.manager, "director@demo.example"]) {
      const phone = api.newDeviceId();
      const code = await newestCode(api, email);
      const hit = await from(api, nat, "pwacheckvalidation", { verificationcode: code }, {
        "device-id": phone,
      });
      // Right and wrong are answered alike: a stranger learns nothing from the answer.
      assert.equal(hit.status, miss.status);
      assert.deepEqual(hit.json, miss.json);
      // The owner's mail has a code for this device; theirs stays live (a stranger's right
      // guess cannot revoke it either).
      const mailed = await newestCode(api, email);
      assert.notEqual(mailed, code);
      assert.ok((await api.deps.store.codes.get(await sha256(code))).value, "code kept");
      // Only this device may present it.
      assertError(
        await from(api, nat, "pwacheckvalidation", { verificationcode: mailed }, {
          "device-id": api.newDeviceId(),
        }),
        403,
        "code_sent_if_right",
      );
      assertOk(
        await from(api, nat, "pwacheckvalidation", { verificationcode: mailed }, {
          "device-id": phone,
        }),
      );
      assertOk(
        await from(api, nat, "pwaconfirmpin", { verificationcode: mailed, pin: "135790" }, {
          "device-id": phone,
        }),
      );
      assert.equal((await api.deps.store.devices.get(phone)).value?.status, "active");
    }
  }),
);

// ---------------------------------------------------------------------------------------------
// Finding 5: user enumeration

async function timed(fn: () => Promise<Res>): Promise<{ r: Res; ms: number }> {
  const t0 = performance.now();
  const r = await fn();
  return { r, ms: performance.now() - t0 };
}

// ---------------------------------------------------------------------------------------------
// Finding 1: activation code brute force with a new device-id per guess

Deno.test(
  "[security] device-rotating code brute force: at most the day's budget can activate, printed",
  withApp(async (api) => {
    const attacker = "203.0.113.66";
    const victimCode = await api.latestCode(DEMO.employee);
    // Every code mailed so far (every user's), so no guess but the victim's is a live one.
    const others = new Set(await allCodes(api));
    let sent = 0, evaluated = 0, throttled = 0, blind = 0, activations = 0;
    // One attacker, one address, a fresh device id per guess, a day's worth of tries
    // (far more than the limits let through). The victim's code is guessed at try 300.
    for (let i = 0; i < 600; i++) {
      const guess = i === 300 ? victimCode : code5(i * 7919 + 11);
      if (i !== 300 && others.has(guess)) continue;
      const r = await from(api, attacker, "pwacheckvalidation", { verificationcode: guess }, {
        "device-id": api.newDeviceId(),
      });
      sent++;
      assert.ok(r.status < 500, r.text);
      if (r.status === 200) activations++;
      if (r.status === 429) throttled++;
      else if (r.json.error === "code_sent_if_right") blind++;
      else evaluated++;
      if (i === 300) {
        // Safe mode: even the right code does not activate a stranger's device; a code bound
        // to that device is mailed to the victim (answered blind past the address's share).
        assert.equal(r.status, 403, r.text);
      }
    }
    const budget = api.deps.config.ACTIVATION_CHECKS_PER_DAY;
    assert.equal(activations, 0);
    // What could have activated a device: the checks inside the organisation's budget.
    const couldActivate = Math.min(budget, evaluated);
    assert.ok(evaluated <= budget + CODE_LIMITS.overflowPerAddress, `${evaluated} evaluated`);
    console.log(
      `  code brute force, one address, device id rotated: ${sent} guesses sent, ` +
        `${evaluated} evaluated, ${blind} answered blind, ${throttled} throttled (429), ` +
        `${couldActivate} could ` +
        `activate (budget ${budget}/day); one pending code needs 50,000 on average: ` +
        `P(take-over of one pending account per day) ≤ ${(couldActivate / 1e5 * 100).toFixed(3)}%`,
    );
    // The old code is dead now if it was ever presented in safe mode; either way it no longer
    // activates a device from this address.
    const again = await from(api, attacker, "pwacheckvalidation", {
      verificationcode: victimCode,
    }, { "device-id": api.newDeviceId() });
    assert.notEqual(again.status, 200);
  }),
);

Deno.test(
  "[security] a code guessed right in safe mode is revoked; the bound replacement is the owner's",
  withApp(async (api) => {
    const attacker = "203.0.113.66";
    // Spend the organisation's budget with wrong guesses.
    for (const wrong of await wrongCodes(api, api.deps.config.ACTIVATION_CHECKS_PER_DAY)) {
      await from(api, attacker, "pwacheckvalidation", { verificationcode: wrong }, {
        "device-id": api.newDeviceId(),
      });
    }
    const code = await api.latestCode(DEMO.approver);
    const strangerDevice = api.newDeviceId();
    const hit = await from(api, attacker, "pwacheckvalidation", { verificationcode: code }, {
      "device-id": strangerDevice,
    });
    assertError(hit, 403, "code_resent");
    // The presented code is gone, for everyone.
    const owner = api.newDeviceId();
    assertError(
      await from(api, "198.51.100.20", "pwacheckvalidation", { verificationcode: code }, {
        "device-id": owner,
      }),
      400,
      "invalid_code",
    );
    // The new code went to the victim's mailbox and only the stranger's device may present
    // it, three tries at most: the stranger has 3 guesses in 100,000.
    const bound = await api.latestCode(DEMO.approver);
    const tries: number[] = [];
    for (const wrong of await wrongCodes(api, 5)) {
      tries.push(
        (await from(api, attacker, "pwacheckvalidation", { verificationcode: wrong }, {
          "device-id": strangerDevice,
        })).status,
      );
    }
    assert.deepEqual(tries, [400, 400, 400, 400, 400]);
    // Dead after the third wrong try, even for the right code on that device.
    assertError(
      await from(api, attacker, "pwacheckvalidation", { verificationcode: bound }, {
        "device-id": strangerDevice,
      }),
      400,
      "invalid_code",
    );
    assert.equal((await api.deps.store.codes.get(await sha256(bound))).value, null);
  }),
);

// ---------------------------------------------------------------------------------------------
// Finding 2: the per-address cap locked everyone out

Deno.test(
  "[security] after an attacker exhausted every limit, the owner still activates (elsewhere or behind the same NAT)",
  withApp(async (api) => {
    const nat = "192.0.2.10";
    // The attacker exhausts the organisation's budget and the address's safe-mode allowance.
    for (const wrong of await wrongCodes(api, 60)) {
      await from(api, nat, "pwacheckvalidation", { verificationcode: wrong }, {
        "device-id": api.newDeviceId(),
      });
    }
    // 1. The owner on another network, with the emailed code: one more step, never refused.
    const code = await api.latestCode(DEMO.employee);
    const phone = api.newDeviceId();
    const first = await from(api, "198.51.100.7", "pwacheckvalidation", {
      verificationcode: code,
    }, { "device-id": phone });
    assertError(first, 403, "code_resent", /new code was sent/);
    const bound = await api.latestCode(DEMO.employee);
    assertOk(
      await from(api, "198.51.100.7", "pwacheckvalidation", { verificationcode: bound }, {
        "device-id": phone,
      }),
    );
    assertOk(
      await from(api, "198.51.100.7", "pwaconfirmpin", { verificationcode: bound, pin: "135790" }, {
        "device-id": phone,
      }),
    );
    // 2. A colleague behind the attacker's NAT is answered blind (a code for this device is
    // mailed if theirs was right), and lost activation still works too: email, secret answer,
    // a code bound to their device.
    const colleague = api.newDeviceId();
    const theirs = await api.latestCode(DEMO.manager);
    assertError(
      await from(api, nat, "pwacheckvalidation", { verificationcode: theirs }, {
        "device-id": colleague,
      }),
      403,
      "code_sent_if_right",
    );
    const q = await from(api, nat, "pwaactivationemail", { email: DEMO.manager }, {
      "device-id": colleague,
    });
    assertOk(q);
    const questOid = (q.json.question as { id: string }).id;
    assertOk(
      await from(api, nat, "pwasecretanswer", {
        email: DEMO.manager,
        answer: "pasta",
        questOid,
      }, { "device-id": colleague }),
    );
    const fresh = await api.latestCode(DEMO.manager);
    assertOk(
      await from(api, nat, "pwacheckvalidation", { verificationcode: fresh }, {
        "device-id": colleague,
      }),
    );
  }),
);

Deno.test(
  "[security] the mailed step past a throttled address is bounded: at most 3 mails per user a day",
  withApp(async (api) => {
    const nat = "192.0.2.78";
    await throttle(api, nat);
    const code = await api.latestCode(DEMO.employee);
    const before = await mailsTo(api, DEMO.employee);
    // Strangers who guessed the code (or the owner, many times) from many devices.
    for (let i = 0; i < 8; i++) {
      assertError(
        await from(api, nat, "pwacheckvalidation", { verificationcode: code }, {
          "device-id": api.newDeviceId(),
        }),
        403,
        "code_sent_if_right",
      );
    }
    const sent = (await mailsTo(api, DEMO.employee)) - before;
    console.log(`  8 right codes from a throttled address: ${sent} mails to the owner`);
    assert.equal(sent, CODE_LIMITS.stepUpMailsPerUser);
    // The owner's code was never revoked: from an address with room it is still a right code
    // (in safe mode, replaced by one bound to that device), not an invalid one.
    assertError(
      await from(api, "198.51.100.99", "pwacheckvalidation", { verificationcode: code }, {
        "device-id": api.newDeviceId(),
      }),
      403,
      "code_resent",
    );
  }),
);

Deno.test(
  "[security] enumeration: known and unknown addresses answer alike, in the same time (30 tries each)",
  withApp(async (api) => {
    const known = DEMO.employee, unknown = "nobody.at.all@demo.example";
    const ask = (email: string) =>
      timed(() =>
        from(api, "198.51.100.30", "pwaactivationemail", { email }, {
          "device-id": api.newDeviceId(),
        })
      );
    const answer = (email: string, i: number) =>
      timed(() =>
        from(api, "198.51.100.30", "pwasecretanswer", {
          email,
          answer: `wrong-${i}`,
          questOid: "q-birth-city",
        }, { "device-id": api.newDeviceId() })
      );
    const times = {
      askK: [] as number[],
      askU: [] as number[],
      ansK: [] as number[],
      ansU: [] as number[],
    };
    for (let i = 0; i < 30; i++) {
      // Interleaved, and in turns first, so drift in the machine's speed and the background
      // work a previous call left behind hit both sides alike.
      const both = async <T>(f: (e: string) => Promise<T>): Promise<[T, T]> => {
        if (i % 2) {
          const u = await f(unknown);
          return [await f(known), u];
        }
        const k = await f(known);
        return [k, await f(unknown)];
      };
      const [k, u] = await both(ask);
      assert.equal(k.r.status, 200);
      assert.equal(u.r.status, 200);
      assert.deepEqual(Object.keys(u.r.json), Object.keys(k.r.json));
      assert.deepEqual(
        Object.keys(u.r.json.question as object).sort(),
        Object.keys(k.r.json.question as object).sort(),
      );
      times.askK.push(k.ms);
      times.askU.push(u.ms);
      const [ak, au] = await both((e) => answer(e, i));
      assert.equal(ak.r.status, au.r.status, `try ${i}: ${ak.r.text} vs ${au.r.text}`);
      assert.equal(ak.r.text, au.r.text, `try ${i}`);
      times.ansK.push(ak.ms);
      times.ansU.push(au.ms);
    }
    const line = (name: string, a: number[], b: number[]) =>
      `${name} known ${median(a).toFixed(2)} ms / unknown ${median(b).toFixed(2)} ms`;
    console.log(`  ${line("activation email:", times.askK, times.askU)}`);
    console.log(`  ${line("secret answer:", times.ansK, times.ansU)}`);
    // Within noise: the medians differ by less than a third of the slower one (the old code
    // answered an unknown address ten times faster, skipping the hash).
    for (const [a, b] of [[times.askK, times.askU], [times.ansK, times.ansU]]) {
      const [ma, mb] = [median(a), median(b)];
      assert.ok(Math.abs(ma - mb) < Math.max(ma, mb) / 3 + 0.5, `${ma} vs ${mb}`);
    }
  }, { PIN_HASH_ITERATIONS: "60000" }),
);

Deno.test(
  "[security] strangers cannot lock a victim out of lost activation",
  withApp(async (api) => {
    // Fifty wrong answers for the victim's address, from fifty devices.
    for (let i = 0; i < 50; i++) {
      await from(api, "203.0.113.77", "pwasecretanswer", {
        email: DEMO.approver,
        answer: `guess-${i}`,
        questOid: "q-first-pet",
      }, { "device-id": api.newDeviceId() });
    }
    // The victim, on their own phone: the right answer still mails a code for this phone.
    const phone = api.newDeviceId();
    const r = await from(api, "198.51.100.40", "pwasecretanswer", {
      email: DEMO.approver,
      answer: "Rex",
      questOid: "q-first-pet",
    }, { "device-id": phone });
    assertOk(r);
    const code = await api.latestCode(DEMO.approver);
    assertOk(
      await from(api, "198.51.100.40", "pwacheckvalidation", { verificationcode: code }, {
        "device-id": phone,
      }),
    );
  }),
);
