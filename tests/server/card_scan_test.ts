/**
 * Card-data scan (docs/security.md, card data: BIN and last 4 at most): after cards are generated,
 * read, frozen, closed and revealed through the API, no full card number and no CVC appears
 * anywhere but inside the reveal answers (sealed for the device's key): not in any other API
 * answer, not in the server's output, not in any KV entry (the issuer's vault holds them
 * encrypted). The browser half (DOM, QCDB, Cache Storage) is in tests/e2e/cards_test.ts.
 */
import assert from "node:assert/strict";
import { DEMO, testApp } from "../helpers.ts";
import { recordDecision } from "../../server/domain/requests.ts";
import { newRevealKey, openWithKey } from "../../client/shared/reveal_cipher.ts";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { login, luhn } from "./api.ts";

const E = "/scmapi/expense";

/** Luhn-valid runs of 13 to 19 digits (every window of a longer run too). */
export function cardNumbersIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\d{13,}/g)) {
    const run = m[0];
    for (let len = 13; len <= Math.min(19, run.length); len++) {
      for (let i = 0; i + len <= run.length; i++) {
        const w = run.slice(i, i + len);
        if (len === 16 && luhn(w)) out.push(w);
      }
    }
  }
  return out;
}

/**
 * The text with its long hex tokens (hashes, key ids: 32+ hex characters with letters among
 * them) masked: a random SHA-256 in hex holds a Luhn-valid run of 16 digits now and then
 * (one did, in a ["vcode", hash] key). The known PANs are still searched for in the text whole.
 */
function withoutHashes(text: string): string {
  return text.replace(/\b[0-9a-f]{32,}\b/gi, (m) => (/[a-f]/i.test(m) ? "<hex>" : m));
}

/**
 * Every way KV may hold a value, as text: JSON and bytes as latin-1 (`text`, scanned for any
 * card number), and bytes as hex (`hex`, searched for the revealed numbers only: random
 * ciphertext in hex has long digit runs, some of them Luhn-valid by chance).
 */
function texts(v: unknown): { text: string[]; hex: string[] } {
  const text = [
    JSON.stringify(
      v,
      (_k, x) => x instanceof Uint8Array ? Array.from(x) : typeof x === "bigint" ? `${x}` : x,
    ),
  ];
  const hex: string[] = [];
  const walk = (x: unknown) => {
    if (x instanceof Uint8Array) {
      text.push(String.fromCharCode(...x));
      hex.push(Array.from(x, (b) => b.toString(16).padStart(2, "0")).join(""));
    } else if (x && typeof x === "object") Object.values(x).forEach(walk);
  };
  walk(v);
  return { text, hex };
}

Deno.test("[cards] card-data scan: no PAN or CVC outside the reveals (answers, output, KV)", async () => {
  const output: string[] = [];
  const keep = (...a: unknown[]) => void output.push(a.map(String).join(" "));
  const saved = [console.log, console.error, console.warn, console.info, console.debug];
  [console.log, console.error, console.warn, console.info, console.debug] = [
    keep,
    keep,
    keep,
    keep,
    keep,
  ];
  const api = await testApp({}, { log: keep });
  const answers: string[] = [];
  const revealed: { pan: string; cvc: string }[] = [];
  try {
    const call = async (
      method: string,
      path: string,
      h: Record<string, string>,
      body?: unknown,
    ) => {
      const r = await api.call(method, `${E}/${path}`, { headers: h, body });
      assert.ok(r.status < 500, r.text);
      if (!path.startsWith("pwaexpensecardreveal")) answers.push(r.text);
      return r;
    };
    for (const [email, phone] of [[DEMO.employee, "612345678"], [DEMO.manager, "698765432"]]) {
      const u = await login(api, email);
      await call("POST", "pwasetexpensedosecure", u.h, {
        record: { password: "Card-scan-1", countryPrefix: "+33", phoneNumber: phone },
      });
      const [sms] = await api.deps.outbox!.list({ to: `+33${phone}`, limit: 1 });
      const pin = /PIN is (\d{4})/.exec(sms.text)![1];
      await call("POST", "pwaexpensedosecurevalidatepin", u.h, { pin });
      for (let i = 0; i < 3; i++) {
        const c = await call("POST", "pwaexpenserequestcreate", u.h, {
          expenseRequest: {
            typeOid: "type-travel",
            amount: 50 + i,
            purpose: `Scan ${i}`,
            costCenterOid: "cc-sales",
            GLOid: "gl-travel",
            projectOid: "prj-crm",
          },
        });
        const oid = (c.json.expenseRequest as ExpenseRequest).oid;
        await call("POST", "pwasubmit", u.h, { record: oid });
        const [a] = await api.deps.store.approvals.byRequest(oid);
        await recordDecision(api.deps, a.oid, "accepted");
        await call("POST", "pwanewqcard", u.h, { oid });
        await call("GET", `pwaexpensecard?oid=${oid}`, u.h);
        await call("GET", `pwaexpensecardobfuscated?oid=${oid}`, u.h);
        for (let k = 0; k < 2; k++) {
          const key = newRevealKey();
          const r = await call("GET", `pwaexpensecardreveal?oid=${oid}&key=${key}`, u.h);
          revealed.push(JSON.parse(await openWithKey(key, String(r.json.encryptedresult))));
        }
        if (i === 0) {
          // Purchases as a merchant sends them (number, CVC, expiry, 3-D Secure).
          const d = revealed.at(-1)!;
          const r = await api.app.request("/_issuer/purchase", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              pan: d.pan,
              cvc: d.cvc,
              amount: "3",
              merchantName: "Scan shop",
              capture: true,
              threeDSPassword: "Card-scan-1",
            }),
          }, { remoteAddr: { hostname: "127.0.0.1" } });
          const text = await r.text();
          assert.equal(r.status, 200, text);
          assert.equal(JSON.parse(text).status, "Captured", text);
          answers.push(text);
          await call("GET", `pwatransaction?oid=${JSON.parse(text).transactionOid}`, u.h);
        }
        if (i === 1) await call("POST", "pwafreezecard", u.h, { oid });
        if (i === 2) await call("POST", "pwaclose", u.h, { oid });
        await call("GET", `pwaexpenseentity?record=${oid}`, u.h);
      }
      await call("GET", "pwalists", u.h);
      await call("GET", "pwaexpensecardsecure", u.h);
    }
    // The issuer's test-mode page and JSON, and the outbox page (developers' views).
    for (const accept of ["application/json", "text/html"]) {
      answers.push(
        await (await api.app.request("/_issuer", { headers: { accept } }, {
          remoteAddr: { hostname: "127.0.0.1" },
        })).text(),
      );
    }
    answers.push(
      await (await api.app.request("/_outbox", { headers: { accept: "application/json" } }, {
        remoteAddr: { hostname: "127.0.0.1" },
      })).text(),
    );
  } finally {
    [console.log, console.error, console.warn, console.info, console.debug] = saved;
  }
  try {
    assert.equal(revealed.length, 12);
    const pans = new Set(revealed.map((r) => r.pan));
    assert.equal(pans.size, 6, "two reveals of each of 6 cards");
    for (const r of revealed) assert.ok(luhn(r.pan) && /^\d{3}$/.test(r.cvc));
    const cvcField = /"cvc"\s*:\s*"(\d{3})"|cvc[^0-9a-z]{0,3}(\d{3})\b/i;

    for (const [where, list] of [["API answers", answers], ["server output", output]] as const) {
      for (const text of list) {
        assert.deepEqual(cardNumbersIn(withoutHashes(text)), [], `${where}: ${text.slice(0, 300)}`);
        for (const pan of pans) assert.ok(!text.includes(pan), `${where} holds a PAN`);
        assert.ok(!cvcField.test(text), `${where} holds a CVC: ${text.slice(0, 300)}`);
      }
    }
    let entries = 0;
    for await (const e of api.kv.list({ prefix: [] })) {
      entries++;
      const where = `KV ${JSON.stringify(e.key)}`;
      const { text, hex } = texts(e.value);
      for (const t of [JSON.stringify(e.key), ...text]) {
        assert.deepEqual(cardNumbersIn(withoutHashes(t)), [], where);
        for (const pan of pans) assert.ok(!t.includes(pan), `${where} holds a PAN`);
        assert.ok(!cvcField.test(t), `${where} holds a CVC`);
      }
      for (const t of hex) {
        for (const pan of pans) assert.ok(!t.includes(pan), `${where} holds a PAN (hex)`);
      }
    }
    assert.ok(entries > 50, `${entries} KV entries scanned`);
  } finally {
    await api.close();
  }
});
