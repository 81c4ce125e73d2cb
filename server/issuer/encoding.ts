/**
 * Text forms of random and hashed bytes. base64url and base32, never hex or decimal: a stored
 * hex digest has runs of digits that a card-data scanner (ours, or a PCI DSS one) reads as a
 * card number.
 */

/** base64url, unpadded. */
export const base64url = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

const B32 = "abcdefghijklmnopqrstuvwxyz234567";

/** base32 (RFC 4648 alphabet, lower case, unpadded). */
export function base32(bytes: Uint8Array): string {
  let out = "";
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += B32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(acc << (5 - bits)) & 31];
  return out;
}

/** SHA-256 of a string's UTF-8, base64url. */
export async function sha256(s: string): Promise<string> {
  return base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))),
  );
}
