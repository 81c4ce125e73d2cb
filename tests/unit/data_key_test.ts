/**
 * The data key and its two wrappers (client/crypto/data_key.ts): the PIN's PBKDF2 key and the
 * passkey's PRF-derived key wrap the same random key; a device sealed before data keys is
 * moved to them at its next PIN unlock (client/actions/device.ts, under fake-indexeddb and a
 * cookie jar standing in for the browser's).
 */
import "fake-indexeddb/auto";
import assert from "node:assert/strict";
import {
  decryptJson,
  deriveDeviceKey,
  encryptJson,
  newKdfParams,
  seal,
  serializeSealed,
  toBase64Url,
  WrongKeyError,
} from "../../client/crypto/device_key.ts";
import { parseAny, type SealedV2, serializeV2 } from "../../client/crypto/data_key.ts";
import {
  openWithDataKey as openRaw,
  reseal,
  sealNew,
  unwrapDataKey as unwrapRaw,
} from "../../client/crypto/data_key_ops.ts";
import { wrongKey } from "../../client/crypto/device_key.ts";

// As the app calls them: a failed authentication is a WrongKeyError.
const unwrapDataKey = (k: CryptoKey, w: { iv: string; ct: string }, extractable = false) =>
  unwrapRaw(k, w, extractable).catch(wrongKey);
const openWithDataKey = (k: CryptoKey, s: SealedV2) => openRaw(k, s).catch(wrongKey);
import {
  HKDF_INFO,
  isPasskeyWrap,
  newPasskeyWrap,
  openPasskeyWrap,
} from "../../client/crypto/passkey_wrap.ts";
import {
  closeQCDB,
  getCached,
  getToken,
  putCached,
  putToken,
  wipeQCDB,
} from "../../client/db/qcdb.ts";
import { putPasskeyWrap } from "../../client/db/passkey_store.ts";

const ITER = 1000; // cheap: these tests are about the wrapping, not PBKDF2's cost
const prf = (fill: number) => new Uint8Array(32).fill(fill);

async function v2(pin = "135790", token = "token-aaaaaaaaaaaaaaaaaaaa") {
  const kdf = newKdfParams(ITER);
  const pinKey = await deriveDeviceKey(pin, kdf);
  return { kdf, pinKey, ...(await sealNew(pinKey, kdf, token)) };
}

Deno.test("[data_key] the PIN key unwraps the data key that opens the token", async () => {
  const { sealed } = await v2();
  const back = parseAny(serializeV2(sealed)) as SealedV2;
  assert.equal(back.v, 2);
  const pinKey = await deriveDeviceKey("135790", back.kdf);
  const dataKey = await unwrapDataKey(pinKey, back.wrap);
  assert.equal(await openWithDataKey(dataKey, back), "token-aaaaaaaaaaaaaaaaaaaa");
  assert.equal(dataKey.extractable, false);
});

Deno.test("[data_key] a wrong PIN cannot unwrap the data key", async () => {
  const { sealed } = await v2();
  const wrong = await deriveDeviceKey("246801", sealed.kdf);
  await assert.rejects(() => unwrapDataKey(wrong, sealed.wrap), WrongKeyError);
});

Deno.test("[data_key] the passkey wrapper wraps the same data key as the PIN", async () => {
  const { sealed, pinKey, dataKey } = await v2();
  const cached = await encryptJson(dataKey, { rows: [1, 2, 3] });
  const exportable = await unwrapDataKey(pinKey, sealed.wrap, true);
  const wrap = await newPasskeyWrap(exportable, prf(7), "Y3JlZGVudGlhbC1pZC0wMDE");
  const viaPasskey = (await openPasskeyWrap(wrap, prf(7))).dataKey;
  assert.ok(isPasskeyWrap(wrap));
  // Same key: it opens the token and the cache the PIN's key sealed, and the other way round.
  assert.equal(await openWithDataKey(viaPasskey, sealed), "token-aaaaaaaaaaaaaaaaaaaa");
  assert.deepEqual(await decryptJson(viaPasskey, cached), { rows: [1, 2, 3] });
  const rotated = await reseal(viaPasskey, sealed, "token-bbbbbbbbbbbbbbbbbbbb");
  const viaPin = await unwrapDataKey(await deriveDeviceKey("135790", sealed.kdf), rotated.wrap);
  assert.equal(await openWithDataKey(viaPin, rotated), "token-bbbbbbbbbbbbbbbbbbbb");
  assert.equal(viaPasskey.extractable, false);
  // Nothing of the PRF output is in the stored wrapper.
  assert.ok(!JSON.stringify(wrap).includes(toBase64Url(prf(7))));
});

Deno.test("[data_key] another PRF output (another passkey) cannot unwrap", async () => {
  const { sealed, pinKey } = await v2();
  const exportable = await unwrapDataKey(pinKey, sealed.wrap, true);
  const wrap = await newPasskeyWrap(exportable, prf(7), "Y3JlZGVudGlhbC1pZC0wMDE");
  await assert.rejects(() => openPasskeyWrap(wrap, prf(8)), WrongKeyError);
});

Deno.test("[data_key] the wrapping key is HKDF-SHA256 with the fixed, versioned info", async () => {
  assert.equal(new TextDecoder().decode(HKDF_INFO), "QCard data-key wrap/passkey-prf/v1");
  const { sealed, pinKey, dataKey } = await v2();
  const exportable = await unwrapDataKey(pinKey, sealed.wrap, true);
  const wrap = await newPasskeyWrap(exportable, prf(9), "Y3JlZGVudGlhbC1pZC0wMDE");
  // Derived independently: HKDF(prf, salt, info) as raw bits, then AES-GCM unwrap.
  const ikm = await crypto.subtle.importKey("raw", prf(9), "HKDF", false, ["deriveBits"]);
  const salt = Uint8Array.from(
    atob(wrap.salt.replace(/-/g, "+").replace(/_/g, "/") + "=="),
    (c) => c.charCodeAt(0),
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt, info: HKDF_INFO },
    ikm,
    256,
  );
  const kek = await crypto.subtle.importKey("raw", bits, "AES-GCM", false, ["unwrapKey"]);
  const same = await unwrapDataKey(kek, wrap);
  const blob = await encryptJson(dataKey, "x");
  assert.equal(await decryptJson(same, blob), "x");
});

Deno.test("[data_key] both formats parse; garbage does not", async () => {
  const kdf = newKdfParams(ITER);
  const v1 = await seal(await deriveDeviceKey("135790", kdf), kdf, "tok");
  assert.equal(parseAny(serializeSealed(v1))?.v, 1);
  const { sealed } = await v2();
  const text = serializeV2(sealed);
  assert.match(text, /^v2\.[0-9]+(\.[A-Za-z0-9_-]+){5}$/);
  assert.equal(parseAny(text.replace("v2.", "v3.")), null);
  assert.equal(parseAny(text.split(".").slice(0, 6).join(".")), null);
  assert.equal(parseAny(`${text}.x`), null);
});

// ---- moving a v1 device at its next PIN unlock (client/actions/device.ts) -----------------

const jar = new Map<string, string>();
Object.defineProperty(globalThis, "document", {
  configurable: true,
  value: {
    get cookie() {
      return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    },
    set cookie(line: string) {
      const [pair, ...attrs] = line.split(";").map((s) => s.trim());
      const eq = pair.indexOf("=");
      if (attrs.some((a) => /^max-age=0$/i.test(a))) jar.delete(pair.slice(0, eq));
      else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    },
  },
});
Object.defineProperty(globalThis, "location", {
  configurable: true,
  value: { protocol: "http:" },
});

Deno.test("[data_key] a v1 device moves to a data key at the next PIN unlock", async () => {
  await wipeQCDB();
  jar.clear();
  const device = await import("../../client/actions/device.ts");
  // A device as an earlier version left it: token and cache under the PIN key itself.
  const kdf = newKdfParams(ITER);
  const pinKey = await deriveDeviceKey("135790", kdf);
  const text = serializeSealed(await seal(pinKey, kdf, "token-v1-aaaaaaaaaaaaaaaa"));
  await putToken({ token: text, pin: kdf.salt, pinlength: 6, rev: 1 });
  await putCached("lists", "pwalists", await encryptJson(pinKey, { old: true }));

  const sealed = (await device.storedSealed())!;
  assert.equal(sealed.v, 1);
  const opened = await device.openToken("135790", sealed);
  assert.equal(opened.token, "token-v1-aaaaaaaaaaaaaaaa");
  const dataKey = await device.replaceToken("token-rotated-bbbbbbbbbbbb", opened.key, sealed);
  assert.notEqual(dataKey, opened.key);

  // Stored as v2 now (QCDB, cookie mirrors it), the cache under the data key.
  const rec = (await getToken())!;
  assert.ok(rec.token.startsWith("v2."));
  assert.ok(jar.get("qc_enctoken")?.startsWith("v2."));
  const again = await device.openToken("135790", (await device.storedSealed())!);
  assert.equal(again.token, "token-rotated-bbbbbbbbbbbb");
  const blob = (await getCached("lists", "pwalists"))!;
  assert.deepEqual(await decryptJson(again.key, blob), { old: true });
  await assert.rejects(() => decryptJson(pinKey, blob), WrongKeyError);
  // The same PIN, a new data key: the wrong PIN still fails.
  await assert.rejects(
    async () => device.openToken("246801", (await device.storedSealed())!),
    WrongKeyError,
  );
  await closeQCDB();
});

Deno.test("[data_key] a rotation keeps the passkey wrapper; a new activation drops it", async () => {
  await wipeQCDB();
  jar.clear();
  const device = await import("../../client/actions/device.ts");
  const { sealed, pinKey } = await v2();
  await putToken({ token: serializeV2(sealed), pin: sealed.kdf.salt, pinlength: 6, rev: 1 });
  const wrap = await newPasskeyWrap(
    await unwrapDataKey(pinKey, sealed.wrap, true),
    prf(3),
    "Y3JlZGVudGlhbC1pZC0wMDE",
  );
  assert.equal(await putPasskeyWrap(wrap), true);
  const opened = await device.openToken("135790", (await device.storedSealed())!);
  await device.replaceToken("token-rotated-cccccccccccc", opened.key, sealed);
  assert.deepEqual((await getToken())?.passkey, wrap);
  // The wrapper still opens the rotated token.
  const viaPasskey = (await openPasskeyWrap((await getToken())!.passkey!, prf(3))).dataKey;
  assert.equal(
    await openWithDataKey(viaPasskey, (await device.storedSealed()) as SealedV2),
    "token-rotated-cccccccccccc",
  );
  await putPasskeyWrap(null);
  assert.equal((await getToken().catch(() => undefined))?.passkey, undefined);
  await putPasskeyWrap(wrap);
  await device.storeToken("token-new-activation-dddd", "135790");
  assert.equal((await getToken().catch(() => undefined))?.passkey, undefined);
  await device.wipeLocalData();
  assert.equal((await getToken().catch(() => undefined))?.passkey, undefined);
  await closeQCDB();
});
