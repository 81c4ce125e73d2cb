/**
 * The reveal envelope (spec §7 pwaexpensecardreveal and pwareveal3ds): the device sends a
 * fresh 16-character key, the server answers the secret encrypted for it, the device
 * decrypts. The answer is therefore useless to anything that stores or logs responses
 * without the key (which never leaves the device's memory after the call). AES-GCM-256
 * with a key of SHA-256("qcard-reveal/v1:" + key), a random 12-byte IV; the envelope is
 * base64url(iv ‖ ciphertext). Pure WebCrypto: the server and the client share this file.
 */
const enc = new TextEncoder();

async function keyFor(revealKey: string, usage: KeyUsage): Promise<CryptoKey> {
  const raw = await crypto.subtle.digest("SHA-256", enc.encode(`qcard-reveal/v1:${revealKey}`));
  return await crypto.subtle.importKey("raw", raw, "AES-GCM", false, [usage]);
}

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function unb64url(s: string): Uint8Array {
  const bin = atob(s.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

export async function sealForKey(revealKey: string, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv },
      await keyFor(revealKey, "encrypt"),
      enc.encode(plaintext),
    ),
  );
  const out = new Uint8Array(iv.length + ct.length);
  out.set(iv);
  out.set(ct, iv.length);
  return b64url(out);
}

/** Throws when the envelope was not made for this key (or was altered). */
export async function openWithKey(revealKey: string, envelope: string): Promise<string> {
  const bytes = unb64url(envelope);
  const pt = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.slice(0, 12) },
    await keyFor(revealKey, "decrypt"),
    bytes.slice(12),
  );
  return new TextDecoder().decode(pt);
}

/** A fresh reveal key: 16 characters from [A-Za-z0-9], without modulo bias. */
export function newRevealKey(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let out = "";
  const buf = new Uint8Array(32);
  while (out.length < 16) {
    crypto.getRandomValues(buf);
    for (const b of buf) {
      if (b < 248 && out.length < 16) out += alphabet[b % 62];
    }
  }
  return out;
}
