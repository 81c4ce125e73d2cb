import assert from "node:assert/strict";
import {
  decryptJson,
  DEFAULT_ITERATIONS,
  deriveDeviceKey,
  encryptJson,
  fromBase64Url,
  IV_BYTES,
  type KdfParams,
  newKdfParams,
  open,
  parseSealed,
  SALT_BYTES,
  seal,
  type Sealed,
  serializeSealed,
  toBase64Url,
  WrongKeyError,
} from "../../client/crypto/device_key.ts";

// Few iterations keep the suite fast; the default is asserted separately.
const FAST = 1000;
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.payload.signature-Ünïcödé";

async function setup(pin = "135790") {
  const kdf = newKdfParams(FAST);
  const key = await deriveDeviceKey(pin, kdf);
  return { kdf, key };
}

/** Flips one bit of a base64url string's decoded bytes. */
function flipBit(b64: string, byte = 0): string {
  const bytes = fromBase64Url(b64)!;
  bytes[byte] ^= 0x01;
  return toBase64Url(bytes);
}

Deno.test("[device_key] defaults to 600k iterations and a random 16-byte salt", () => {
  const a = newKdfParams();
  const b = newKdfParams();
  assert.equal(a.alg, "PBKDF2-SHA256");
  assert.ok(DEFAULT_ITERATIONS >= 600_000);
  assert.equal(a.iterations, DEFAULT_ITERATIONS);
  assert.equal(fromBase64Url(a.salt)?.length, SALT_BYTES);
  assert.equal(SALT_BYTES, 16);
  assert.notEqual(a.salt, b.salt);
  assert.throws(() => newKdfParams(0), RangeError);
  assert.throws(() => newKdfParams(1.5), RangeError);
});

Deno.test("[device_key] seal then open returns the plaintext", async () => {
  const { kdf, key } = await setup();
  const sealed = await seal(key, kdf, TOKEN);
  assert.equal(sealed.v, 1);
  assert.deepEqual(sealed.kdf, kdf);
  assert.equal(fromBase64Url(sealed.iv)?.length, IV_BYTES);
  assert.equal(await open(key, sealed), TOKEN);
  // A later session re-derives the key from the stored parameters alone.
  const again = await deriveDeviceKey("135790", sealed.kdf);
  assert.equal(await open(again, sealed), TOKEN);
});

Deno.test("[device_key] the wrong PIN fails with WrongKeyError", async () => {
  const { kdf, key } = await setup("135790");
  const sealed = await seal(key, kdf, TOKEN);
  const wrong = await deriveDeviceKey("135791", kdf);
  await assert.rejects(open(wrong, sealed), WrongKeyError);
  const otherSalt = await deriveDeviceKey("135790", newKdfParams(FAST));
  await assert.rejects(open(otherSalt, sealed), WrongKeyError);
});

Deno.test("[device_key] the derived key is not extractable", async () => {
  const { key } = await setup();
  assert.equal(key.extractable, false);
  assert.deepEqual([...key.usages].sort(), ["decrypt", "encrypt", "unwrapKey"]);
  assert.equal((key.algorithm as AesKeyAlgorithm).length, 256);
  await assert.rejects(crypto.subtle.exportKey("raw", key));
  await assert.rejects(crypto.subtle.exportKey("jwk", key));
});

Deno.test("[device_key] every seal uses a fresh IV", async () => {
  const { kdf, key } = await setup();
  const a = await seal(key, kdf, TOKEN);
  const b = await seal(key, kdf, TOKEN);
  assert.notEqual(a.iv, b.iv);
  assert.notEqual(a.ct, b.ct);
  const x = await encryptJson(key, { n: 1 });
  const y = await encryptJson(key, { n: 1 });
  assert.notEqual(x.iv, y.iv);
});

Deno.test("[device_key] tampered ciphertext, IV or tag is rejected", async () => {
  const { kdf, key } = await setup();
  const sealed = await seal(key, kdf, TOKEN);
  const ctLen = fromBase64Url(sealed.ct)!.length;
  for (
    const bad of [
      { ...sealed, ct: flipBit(sealed.ct, 0) },
      { ...sealed, ct: flipBit(sealed.ct, ctLen - 1) }, // inside the tag
      { ...sealed, iv: flipBit(sealed.iv, 5) },
    ]
  ) {
    await assert.rejects(open(key, bad), WrongKeyError);
  }
  // Truncated below a tag, or not base64url at all: malformed, not "wrong PIN".
  await assert.rejects(open(key, { ...sealed, ct: "AAAA" }), TypeError);
  await assert.rejects(open(key, { ...sealed, iv: "not base64!" }), TypeError);
});

Deno.test("[device_key] seal refuses parameters other than the key's", async () => {
  const { key } = await setup();
  await assert.rejects(seal(key, newKdfParams(FAST), TOKEN), TypeError);
});

Deno.test("[device_key] deriveDeviceKey validates its inputs", async () => {
  const kdf = newKdfParams(FAST);
  await assert.rejects(deriveDeviceKey("", kdf), TypeError);
  await assert.rejects(
    deriveDeviceKey("135790", { ...kdf, salt: "short" }),
    TypeError,
  );
  await assert.rejects(
    deriveDeviceKey("135790", { ...kdf, iterations: 0 }),
    RangeError,
  );
  await assert.rejects(
    deriveDeviceKey("135790", {
      ...kdf,
      alg: "PBKDF2-SHA1",
    } as unknown as KdfParams),
    TypeError,
  );
});

Deno.test("[device_key] JSON values roundtrip and fail on the wrong key", async () => {
  const { key } = await setup();
  const value = {
    expenses: { expenseslist: [{ oid: "1", amount: 12.5 }] },
    fname: "Zoë",
    ok: true,
    none: null,
  };
  const blob = await encryptJson(key, value);
  assert.deepEqual(Object.keys(blob).sort(), ["ct", "iv"]);
  assert.deepEqual(await decryptJson(key, blob), value);
  assert.deepEqual(await decryptJson(key, await encryptJson(key, [])), []);
  const { key: other } = await setup();
  await assert.rejects(decryptJson(other, blob), WrongKeyError);
  await assert.rejects(encryptJson(key, undefined), TypeError);
});

Deno.test("[device_key] serializeSealed is cookie-safe and parses back", async () => {
  const { kdf, key } = await setup();
  const sealed = await seal(key, kdf, TOKEN);
  const text = serializeSealed(sealed);
  assert.match(
    text,
    /^v1\.1000\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
  );
  assert.doesNotMatch(text, /[;, ="\\]/);
  const parsed = parseSealed(text);
  assert.deepEqual(parsed, sealed);
  assert.equal(await open(key, parsed!), TOKEN);
});

Deno.test("[device_key] parseSealed returns null on garbage", async () => {
  const { kdf, key } = await setup();
  const good = serializeSealed(await seal(key, kdf, TOKEN));
  const [, iter, salt, iv, ct] = good.split(".");
  const garbage = [
    "",
    "v1",
    "hello world",
    "v1....",
    `v2.${iter}.${salt}.${iv}.${ct}`,
    `V1.${iter}.${salt}.${iv}.${ct}`,
    `v1.0.${salt}.${iv}.${ct}`,
    `v1.-5.${salt}.${iv}.${ct}`,
    `v1.01000.${salt}.${iv}.${ct}`,
    `v1.1e3.${salt}.${iv}.${ct}`,
    `v1.99999999.${salt}.${iv}.${ct}`, // above MAX_ITERATIONS
    `v1.${iter}.${salt}.${iv}`,
    `v1.${iter}.${salt}.${iv}.${ct}.extra`,
    `v1.${iter}.${salt.slice(2)}.${iv}.${ct}`, // salt too short
    `v1.${iter}.${salt}.${iv}AAAA.${ct}`, // iv too long
    `v1.${iter}.${salt}.${iv}.AAAA`, // shorter than a GCM tag
    `v1.${iter}.${salt}.${iv}.${ct}=`, // padding
    `v1.${iter}.${salt}.${iv}.${ct.replace(/[A-Za-z]/, "+")}`, // base64, not url
    `v1.${iter}.${salt}.${iv}.${ct}A`, // impossible length
    `v1.${iter}.${salt.slice(0, -1)}B.${iv}.${ct}`, // non-canonical last char
    `v1.${iter}.${salt}.${iv}.${ct} `,
    `v1.${iter}.${salt}.${iv}.${"A".repeat(5000)}`,
    good.replace(/\./g, ";"),
  ];
  for (const text of garbage) {
    assert.equal(parseSealed(text), null, JSON.stringify(text));
  }
  for (const notText of [undefined, null, 42, {}]) {
    assert.equal(parseSealed(notText as unknown as string), null);
  }
});

Deno.test("[device_key] serializeSealed refuses a malformed value", () => {
  const kdf = newKdfParams(FAST);
  const bad = { v: 1, kdf, iv: "x", ct: "y" } as Sealed;
  assert.throws(() => serializeSealed(bad), TypeError);
});

Deno.test("[device_key] base64url helpers roundtrip all lengths", () => {
  for (let n = 0; n < 70; n++) {
    const bytes = crypto.getRandomValues(new Uint8Array(n));
    const text = toBase64Url(bytes);
    assert.match(text, /^[A-Za-z0-9_-]*$/);
    assert.deepEqual(fromBase64Url(text), bytes);
  }
  const big = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7919) & 0xff);
  assert.deepEqual(fromBase64Url(toBase64Url(big)), big);
});

Deno.test("[device_key] base64url decoding is as strict with the native decoder as without", () => {
  const U = Uint8Array as unknown as { fromBase64?: unknown };
  const native = U.fromBase64;
  assert.equal(typeof native, "function", "this runtime has Uint8Array.fromBase64");
  const bad = ["A", "AA=", "AA==", "A A", "AAA\n", " AAA", "AB", "AAB", "+/8", "AA=A", "AAAAA"];
  const check = () => {
    for (const s of bad) assert.equal(fromBase64Url(s), null, JSON.stringify(s));
    for (let n = 0; n < 40; n++) {
      const bytes = crypto.getRandomValues(new Uint8Array(n));
      assert.deepEqual(fromBase64Url(toBase64Url(bytes)), bytes);
    }
  };
  check();
  try {
    delete U.fromBase64;
    check();
  } finally {
    U.fromBase64 = native;
  }
});
