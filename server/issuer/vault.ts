/**
 * The simulator's vault: PAN and CVC sealed with AES-GCM-256 (random 12-byte IV, the card
 * token as additional data, so a sealed value copied onto another card does not open). This is
 * the only module that sees them in clear, and only for the time of one call.
 */
import { IssuerError } from "./errors.ts";

/** What KV holds for a card's secrets: version, IV and ciphertext (with its 16-byte tag). */
export interface Sealed {
  v: 1;
  iv: Uint8Array<ArrayBuffer>;
  ct: Uint8Array<ArrayBuffer>;
}

export interface CardSecret {
  pan: string;
  cvc: string;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Encrypts `secret` for the card `token` under `key` (AES-GCM, non-extractable). */
export async function seal(key: CryptoKey, token: string, secret: CardSecret): Promise<Sealed> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = enc.encode(`${secret.pan}:${secret.cvc}`);
  try {
    const ct = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: enc.encode(token) },
      key,
      plain,
    );
    return { v: 1, iv, ct: new Uint8Array(ct) };
  } finally {
    plain.fill(0);
  }
}

/** Decrypts a card's secrets; `vault_unreadable` when the key or the token does not match. */
export async function unseal(key: CryptoKey, token: string, sealed: Sealed): Promise<CardSecret> {
  let plain: Uint8Array;
  try {
    plain = new Uint8Array(
      await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: sealed.iv, additionalData: enc.encode(token) },
        key,
        sealed.ct,
      ),
    );
  } catch {
    throw new IssuerError(
      "vault_unreadable",
      "The card's details cannot be decrypted with this issuer key (was ISSUER_KEY changed?)",
    );
  }
  const text = dec.decode(plain);
  plain.fill(0);
  const m = /^(\d{16}):(\d{3})$/.exec(text);
  if (!m) throw new IssuerError("vault_unreadable", "The card's sealed details are malformed");
  return { pan: m[1], cvc: m[2] };
}
