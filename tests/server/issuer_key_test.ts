import assert from "node:assert/strict";
import {
  issuerKeyPath,
  loadIssuerKey,
  newIssuerKeyText,
  parseIssuerKey,
} from "../../server/issuer/key.ts";
import { seal, unseal } from "../../server/issuer/vault.ts";

const SECRET = { pan: "4242424242424242", cvc: "123" };
const dev = (over = {}) => ({
  APP_ENV: "development",
  KV_PATH: ":memory:",
  onDeploy: false,
  ...over,
});

/** True when what `a` seals, `b` opens: the same key material. */
async function sameKey(a: CryptoKey, b: CryptoKey) {
  const sealed = await seal(a, "ic_t", SECRET);
  try {
    return (await unseal(b, "ic_t", sealed)).pan === SECRET.pan;
  } catch {
    return false;
  }
}

async function tempDir() {
  const dir = await Deno.makeTempDir({ prefix: "issuer_key_" });
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("[issuer key] ISSUER_KEY is used when set: a non-extractable AES-GCM-256 key", async () => {
  const text = newIssuerKeyText();
  assert.match(text, /^[A-Za-z0-9_-]{43}$/);
  const warned: string[] = [];
  const k1 = await loadIssuerKey({ ...dev(), APP_ENV: "production", ISSUER_KEY: text }, {
    warn: (l) => warned.push(l),
  });
  const k2 = await loadIssuerKey(dev({ ISSUER_KEY: `${text}=\n` })); // padded, trailing newline
  assert.equal(k1.extractable, false);
  assert.deepEqual(k1.algorithm, { name: "AES-GCM", length: 256 });
  assert.deepEqual([...k1.usages].sort(), ["decrypt", "encrypt"]);
  await assert.rejects(crypto.subtle.exportKey("raw", k1));
  assert.ok(await sameKey(k1, k2));
  assert.ok(!(await sameKey(k1, await loadIssuerKey(dev({ ISSUER_KEY: newIssuerKeyText() })))));
  assert.deepEqual(warned, []);
});

Deno.test("[issuer key] a malformed ISSUER_KEY is refused, named, never echoed", async () => {
  const good = newIssuerKeyText();
  const bad = [
    good.slice(0, 42), // 31.5 bytes
    good + "AAAA", // 35 bytes
    btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))).replace(/=/, "")
      .replace(/^./, "+"), // standard base64 alphabet
    good.slice(0, 42) + "B", // last character carries bits past the 32 bytes
    "A".repeat(43), // 32 zero bytes: a placeholder
    "not a key at all",
  ];
  for (const ISSUER_KEY of bad) {
    await assert.rejects(loadIssuerKey(dev({ ISSUER_KEY })), (e: Error) => {
      assert.match(e.message, /^ISSUER_KEY /);
      assert.ok(!e.message.includes(ISSUER_KEY), "value not echoed");
      return true;
    });
  }
  assert.equal(parseIssuerKey(good).length, 32);
});

Deno.test("[issuer key] production and Deno Deploy without ISSUER_KEY refuse to start", async () => {
  await using t = await tempDir();
  const warned: string[] = [];
  const warn = (l: string) => warned.push(l);
  for (
    const src of [
      dev({ APP_ENV: "production", KV_PATH: `${t.dir}/qcard.kv` }),
      dev({ APP_ENV: "production", ISSUER_KEY: "" }),
      dev({ onDeploy: true }),
    ]
  ) {
    await assert.rejects(loadIssuerKey(src, { warn }), /ISSUER_KEY is required/);
  }
  assert.deepEqual([...Deno.readDirSync(t.dir)], [], "no key file written");
  assert.deepEqual(warned, []);
});

Deno.test("[issuer key] development with a KV file: generated once beside it, then reused", async () => {
  await using t = await tempDir();
  const KV_PATH = `${t.dir}/data/qcard.kv`;
  const path = `${t.dir}/data/issuer.key`;
  const warned: string[] = [];
  const warn = (l: string) => warned.push(l);
  const k1 = await loadIssuerKey(dev({ KV_PATH }), { warn });
  const st = await Deno.stat(path);
  assert.equal(st.mode! & 0o777, 0o600);
  const text = (await Deno.readTextFile(path)).trim();
  assert.equal(parseIssuerKey(text).length, 32);
  assert.equal(warned.length, 1);
  assert.match(warned[0], /ISSUER_KEY is not set/);
  assert.ok(warned[0].includes(path) && warned[0].includes("generated"), warned[0]);
  assert.ok(!warned[0].includes(text), "the key is never printed");
  const k2 = await loadIssuerKey(dev({ KV_PATH }), { warn });
  assert.ok(await sameKey(k1, k2), "the same key after a restart");
  assert.equal(warned.length, 2);
  assert.ok(!warned[1].includes("generated") && warned[1].includes(path), warned[1]);
  assert.equal((await Deno.readTextFile(path)).trim(), text, "file unchanged");
  assert.deepEqual([...Deno.readDirSync(`${t.dir}/data`)].map((e) => e.name), ["issuer.key"]);
  // A copy that lost its mode is made private again.
  await Deno.chmod(path, 0o644);
  assert.ok(await sameKey(k1, await loadIssuerKey(dev({ KV_PATH }), { warn })));
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
});

Deno.test("[issuer key] ten servers starting together end up with one key file", async () => {
  await using t = await tempDir();
  const KV_PATH = `${t.dir}/qcard.kv`;
  const keys = await Promise.all(
    Array.from({ length: 10 }, () => loadIssuerKey(dev({ KV_PATH }), { warn: () => {} })),
  );
  for (const k of keys) assert.ok(await sameKey(keys[0], k));
  assert.deepEqual([...Deno.readDirSync(t.dir)].map((e) => e.name), ["issuer.key"]);
});

Deno.test("[issuer key] a damaged key file is refused by its path", async () => {
  await using t = await tempDir();
  await Deno.writeTextFile(`${t.dir}/issuer.key`, "garbage\n", { mode: 0o600 });
  await assert.rejects(
    loadIssuerKey(dev({ KV_PATH: `${t.dir}/qcard.kv` }), { warn: () => {} }),
    (e: Error) => e.message.startsWith(`${t.dir}/issuer.key `),
  );
});

Deno.test("[issuer key] in-memory KV: a fresh key in memory, nothing written or printed", async () => {
  const warned: string[] = [];
  const a = await loadIssuerKey(dev(), { warn: (l) => warned.push(l) });
  const b = await loadIssuerKey(dev(), { warn: (l) => warned.push(l) });
  assert.ok(!(await sameKey(a, b)));
  assert.equal(a.extractable, false);
  assert.deepEqual(warned, []);
});

Deno.test("[issuer key] the key file sits in the KV file's directory", () => {
  assert.equal(issuerKeyPath("./data/qcard.kv"), "./data/issuer.key");
  assert.equal(issuerKeyPath("/var/lib/qcard/db.kv"), "/var/lib/qcard/issuer.key");
  assert.equal(issuerKeyPath("qcard.kv"), "issuer.key");
});
