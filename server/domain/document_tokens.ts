import { fromBase64Url, toBase64Url } from "./base64url.ts";

// The document service's own short-lived tokens (spec §7 remote document delete,
// DELETE {remoteUrl}/proxy?token): HMAC-SHA256 over (document oid, operation, expiry, nonce)
// with a key generated once and kept in KV, so every process sharing the KV accepts the
// tokens of the others. A token works once: its nonce is recorded in KV (expiring with it)
// by a checked atomic write, so two requests racing with one token cannot both pass.

/** spec §7 remote delete: a token lives 2 minutes at most. */
export const TOKEN_TTL_MS = 120_000;

const KEY: Deno.KvKey = ["docsvc", "hmac_key"];
const USED = (nonce: string): Deno.KvKey => ["docsvc", "token_used", nonce];

export type TokenOperation = "delete";

interface Claims {
  /** Document oid. */
  d: string;
  o: TokenOperation;
  /** Expiry, epoch ms. */
  e: number;
  n: string;
}

const keys = new WeakMap<Deno.Kv, Promise<CryptoKey>>();

/** The service's HMAC key: read from KV, or made and stored by the first process to ask. */
function hmacKey(kv: Deno.Kv): Promise<CryptoKey> {
  let k = keys.get(kv);
  if (!k) {
    k = (async () => {
      let raw = (await kv.get<Uint8Array>(KEY)).value;
      if (!raw) {
        const fresh = crypto.getRandomValues(new Uint8Array(32));
        // Only the first writer wins; everyone then uses the stored key.
        await kv.atomic().check({ key: KEY, versionstamp: null }).set(KEY, fresh).commit();
        raw = (await kv.get<Uint8Array>(KEY)).value!;
      }
      return await crypto.subtle.importKey(
        "raw",
        new Uint8Array(raw),
        { name: "HMAC", hash: "SHA-256" },
        false,
        [
          "sign",
          "verify",
        ],
      );
    })();
    k.catch(() => keys.delete(kv));
    keys.set(kv, k);
  }
  return k;
}

const enc = new TextEncoder();

/** A token for one `op` on document `oid`, valid until now + ttl (≤ 2 minutes). */
export async function issueToken(
  kv: Deno.Kv,
  oid: string,
  op: TokenOperation,
  now: number,
  ttlMs = TOKEN_TTL_MS,
): Promise<string> {
  const claims: Claims = {
    d: oid,
    o: op,
    e: now + Math.min(ttlMs, TOKEN_TTL_MS),
    n: toBase64Url(crypto.getRandomValues(new Uint8Array(16))),
  };
  const body = toBase64Url(enc.encode(JSON.stringify(claims)));
  const sig = await crypto.subtle.sign("HMAC", await hmacKey(kv), enc.encode(body));
  return `${body}.${toBase64Url(new Uint8Array(sig))}`;
}

/**
 * True once for a genuine, unexpired token of `op` on `oid`; false for anything else (bad
 * signature, another document or operation, expired, or already used).
 */
export async function redeemToken(
  kv: Deno.Kv,
  token: string,
  oid: string,
  op: TokenOperation,
  now: number,
): Promise<boolean> {
  const m = /^([A-Za-z0-9_-]{1,512})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return false;
  const sig = fromBase64Url(m[2]);
  if (!sig) return false;
  const ok = await crypto.subtle.verify("HMAC", await hmacKey(kv), sig, enc.encode(m[1]));
  if (!ok) return false;
  let claims: Claims;
  try {
    claims = JSON.parse(new TextDecoder().decode(fromBase64Url(m[1])!));
  } catch {
    return false;
  }
  if (claims?.d !== oid || claims.o !== op || typeof claims.e !== "number") return false;
  if (typeof claims.n !== "string" || claims.n.length > 64) return false;
  if (claims.e <= now || claims.e - now > TOKEN_TTL_MS) return false;
  const key = USED(claims.n);
  const r = await kv.atomic().check({ key, versionstamp: null })
    .set(key, 1, { expireIn: claims.e - now + 60_000 }).commit();
  return r.ok;
}
