import { createHash } from "node:crypto";

/** Server-side secrets: tokens, verification codes and PIN/answer hashes (spec §5, §6). */

const enc = new TextEncoder();

export function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** 256 random bits, base64url: far above the 128-bit floor for bearer tokens. */
export function newToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * Tokens are stored only as this hash, so a leaked store does not leak sessions. Hex of
 * SHA-256, computed synchronously (node:crypto): on every bearer call, where WebCrypto's
 * async digest cost an op round trip and showed in the profile.
 */
// deno-lint-ignore require-await
export async function sha256(text: string): Promise<string> {
  return createHash("sha256").update(text).digest("hex");
}

/** A 5-digit verification code from a secure source, without modulo bias. */
export function newVerificationCode(): string {
  const buf = new Uint32Array(1);
  const limit = Math.floor(0x1_0000_0000 / 100_000) * 100_000;
  for (;;) {
    crypto.getRandomValues(buf);
    if (buf[0] < limit) return String(buf[0] % 100_000).padStart(5, "0");
  }
}

export interface SaltedHash {
  salt: string;
  iterations: number;
  hash: string;
}

async function pbkdf2(secret: string, salt: Uint8Array, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return base64url(new Uint8Array(bits));
}

function fromBase64url(s: string): Uint8Array {
  const b = atob(s.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}

/** Slow salted hash for PINs and secret answers (low-entropy secrets). */
export async function hashSecret(secret: string, iterations: number): Promise<SaltedHash> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return { salt: base64url(salt), iterations, hash: await pbkdf2(secret, salt, iterations) };
}

export async function verifySecret(secret: string, h: SaltedHash): Promise<boolean> {
  const got = await pbkdf2(secret, fromBase64url(h.salt), h.iterations);
  return timingSafeEqual(got, h.hash);
}

export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Secret answers are compared case- and space-insensitively: people type them on phones. */
export function normaliseAnswer(answer: string): string {
  return answer.trim().toLowerCase().replace(/\s+/g, " ");
}
