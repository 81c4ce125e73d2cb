/**
 * Card data (engineering.md §5): the simulator is the only holder of PAN and CVC, and even it keeps
 * them in KV only sealed. These tests reveal real cards and then look for their numbers in
 * every KV entry, in every rendering a leak could take.
 */
import assert from "node:assert/strict";
import { entries, fixture, order, rejectsWith } from "./issuer_fixture.ts";
import { luhnValid, TEST_BINS } from "../../server/issuer/pan.ts";
import type { Brand, CardDetails } from "../../server/issuer/mod.ts";

Deno.test("[issuer] 1,000 cards of both brands: Luhn-valid, in test BINs, all unique", async () => {
  await using f = await fixture();
  const pans = new Set<string>();
  const bins = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const brand: Brand = i % 2 ? "visa" : "mastercard";
    const card = await f.issuer.createCard(order({ brand }));
    const s = await f.issuer.createRevealSession(card.token);
    const d = await f.issuer.redeemRevealSession(s.sessionId);
    assert.match(d.pan, /^\d{16}$/);
    assert.ok(luhnValid(d.pan), "Luhn");
    assert.ok(TEST_BINS[brand].includes(d.pan.slice(0, 6)), `${brand} BIN`);
    assert.equal(d.pan.slice(-4), card.last4);
    assert.match(d.cvc, /^\d{3}$/);
    pans.add(d.pan);
    bins.add(d.pan.slice(0, 6));
  }
  assert.equal(pans.size, 1000);
  assert.equal(bins.size, TEST_BINS.visa.length + TEST_BINS.mastercard.length);
});

Deno.test("[issuer] a number drawn twice is drawn again: PANs are unique per simulator", async () => {
  await using f = await fixture();
  // Rig the generator: the BIN pick answers 0 and the first two 9-digit draws answer zeros,
  // so the second card's first number is the first card's.
  const real = crypto.getRandomValues.bind(crypto);
  let rigged = 0;
  crypto.getRandomValues = (<T extends ArrayBufferView | null>(a: T): T => {
    const bytes = a as unknown as Uint8Array;
    if (bytes.length === 1) return (bytes.fill(0), a);
    if (bytes.length === 18 && rigged < 2) return (rigged++, bytes.fill(0), a);
    return real(a as unknown as Uint8Array<ArrayBuffer>) as unknown as T;
  }) as typeof crypto.getRandomValues;
  let first: CardDetails, second: CardDetails;
  try {
    const a = await f.issuer.createCard(order());
    const b = await f.issuer.createCard(order());
    first = await f.issuer.redeemRevealSession(
      (await f.issuer.createRevealSession(a.token)).sessionId,
    );
    second = await f.issuer.redeemRevealSession(
      (await f.issuer.createRevealSession(b.token)).sessionId,
    );
  } finally {
    crypto.getRandomValues = real;
  }
  assert.equal(rigged, 2, "the rig was used");
  assert.equal(first.pan, `${TEST_BINS.visa[0]}000000000${first.pan[15]}`);
  assert.notEqual(second.pan, first.pan);
  assert.ok(luhnValid(second.pan));
});

/** Every rendering a stored value could leak a number in. */
function renderings(value: unknown): { json: string; binary: string[] } {
  const binary: string[] = [];
  const json = JSON.stringify(value, (_k, v) => {
    if (v instanceof Uint8Array) {
      const hex = Array.from(v, (b) => b.toString(16).padStart(2, "0")).join("");
      const latin1 = String.fromCharCode(...v);
      binary.push(hex, btoa(latin1), latin1, new TextDecoder().decode(v));
      return { bytes: btoa(latin1) };
    }
    return v;
  });
  return { json: json ?? "null", binary };
}

/** Every 16-digit window of every digit run in `s` that passes Luhn. */
function luhnNumbers(s: string): string[] {
  const out: string[] = [];
  for (const run of s.match(/\d{16,}/g) ?? []) {
    for (let i = 0; i + 16 <= run.length; i++) {
      if (luhnValid(run.slice(i, i + 16))) out.push(run.slice(i, i + 16));
    }
  }
  return out;
}

/** What is wrong with one KV entry, given the revealed cards and session ids. */
function leaks(e: Deno.KvEntry<unknown>, cards: CardDetails[], sessionIds: string[]) {
  const found: string[] = [];
  const where = JSON.stringify(e.key);
  const { json, binary } = renderings(e.value);
  const text = `${where} ${json}`;
  for (const n of luhnNumbers(text)) found.push(`${where}: Luhn-valid 16 digits ${n}`);
  if (/"(pan|cvc|cvv|cvv2|cvc2|number|card_?number)"\s*:/i.test(json)) {
    found.push(`${where}: a field named like card data`);
  }
  for (const c of cards) {
    if (text.includes(c.pan)) found.push(`${where}: a PAN in clear`);
    if (binary.some((b) => b.includes(c.pan))) found.push(`${where}: a PAN in bytes`);
    // A 3-digit CVC is any number's substring by chance; look for it as a value of its own
    // (a string, or a number when it has no leading zero; no stored number has 3 digits).
    const asNumber = c.cvc.startsWith("0") ? "" : `|${c.cvc}`;
    const cvcValue = new RegExp(`(:|\\[|,)("${c.cvc}"${asNumber})(,|\\]|\\})`);
    if (cvcValue.test(json)) found.push(`${where}: a CVC as a value`);
    if (binary.some((b) => b.includes(`:${c.cvc}`) || b.includes(`"${c.cvc}"`))) {
      found.push(`${where}: a CVC in bytes`);
    }
  }
  for (const id of sessionIds) if (text.includes(id)) found.push(`${where}: a reveal session id`);
  return found;
}

Deno.test("[issuer] KV scan: after 20 cards created and revealed, no card data in clear", async () => {
  await using f = await fixture();
  const cards: CardDetails[] = [];
  const sessionIds: string[] = [];
  for (let i = 0; i < 20; i++) {
    const card = await f.issuer.createCard(
      i % 3
        ? order({ brand: i % 2 ? "visa" : "mastercard" })
        : order({ amount: undefined, fundingLines: [{ date: "2026-02-01", amount: 4_200 }] }),
    );
    const s = await f.issuer.createRevealSession(card.token);
    cards.push(await f.issuer.redeemRevealSession(s.sessionId));
    // Some sessions stay open, so their records are in the scan too.
    if (i % 4 === 0) sessionIds.push((await f.issuer.createRevealSession(card.token)).sessionId);
    if (i % 5 === 0) await f.issuer.freeze(card.token);
  }
  // The scanner finds what it looks for (else a clean scan proves nothing).
  const c0 = cards[0];
  const planted = [
    { x: new TextEncoder().encode(`${c0.pan}`) },
    { note: `stored ${c0.pan}` },
    { secret: c0.cvc },
    [c0.cvc.startsWith("0") ? c0.cvc : Number(c0.cvc)],
    { y: new TextEncoder().encode(`{"c":"${c0.cvc}"}`) },
  ];
  for (const value of planted) {
    assert.notDeepEqual(leaks({ key: ["t"], value, versionstamp: "" }, [c0], []), [], "planted");
  }
  const all = await entries(f.kv);
  assert.ok(all.length >= 20 * 4, `${all.length} entries`);
  assert.ok(all.every((e) => e.key[0] === "issuer"), "everything under ['issuer', …]");
  assert.equal((await entries(f.kv, ["issuer", "vault"])).length, 20, "the vault is scanned");
  assert.equal((await entries(f.kv, ["issuer", "reveal"])).length, sessionIds.length);
  const found = all.flatMap((e) => leaks(e, cards, sessionIds));
  assert.deepEqual(found, []);
});

Deno.test("[issuer] the vault is bound to its card and its key", async () => {
  await using f = await fixture();
  const a = await f.issuer.createCard(order());
  const b = await f.issuer.createCard(order());
  // Sealed details copied onto another card do not open there (the token is the AAD).
  const va = await f.kv.get(["issuer", "vault", a.token]);
  await f.kv.set(["issuer", "vault", b.token], va.value);
  const s = await f.issuer.createRevealSession(b.token);
  await rejectsWith(f.issuer.redeemRevealSession(s.sessionId), "vault_unreadable");
  // The record of a card holds only what may be shown.
  const rec = (await f.kv.get<Record<string, unknown>>(["issuer", "card", a.token])).value!;
  assert.deepEqual(Object.keys(rec).sort(), [
    "amountAllocated",
    "amountFunded",
    "amountSpent",
    "brand",
    "cardholderId",
    "cardholderName",
    "createdAt",
    "currency",
    "expMonth",
    "expYear",
    "kind",
    "last4",
    "lines",
    "metadata",
    "spendingControls",
    "status",
    "token",
    "updatedAt",
    "v",
    "validUntil",
  ]);
});
