/**
 * The card holder's 3-D Secure password in the simulator: sealed with the vault key like the
 * card secrets (AES-GCM-256, random IV, additional data "3ds:<holder>" so a sealed value does
 * not open for another holder). A "pending" password waits for the holder's PIN; promoting it
 * makes it the current one in one atomic write.
 */
import { IssuerError } from "./errors.ts";
import { PREFIX } from "./records.ts";
import type { Sealed } from "./vault.ts";

const enc = new TextEncoder();
export type Slot = "pending" | "current";
export const K3ds = (holderId: string, slot: Slot) => [PREFIX, "3ds", holderId, slot];

function checkHolder(holderId: string) {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(holderId)) {
    throw new IssuerError("invalid_request", "holderId must be 1-128 letters, digits, - or _");
  }
}

export async function setPassword(
  kv: Deno.Kv,
  key: CryptoKey,
  holderId: string,
  password: string,
  slot: Slot,
): Promise<void> {
  checkHolder(holderId);
  if (!password || password.length > 64) {
    throw new IssuerError("invalid_request", "password must be 1-64 characters");
  }
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = enc.encode(password);
  try {
    const ct = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: enc.encode(`3ds:${holderId}`) },
      key,
      plain,
    );
    await kv.set(K3ds(holderId, slot), { v: 1, iv, ct: new Uint8Array(ct) } satisfies Sealed);
  } finally {
    plain.fill(0);
  }
}

/** pending → current, atomically; false when nothing is pending. */
export async function promote(kv: Deno.Kv, holderId: string): Promise<boolean> {
  checkHolder(holderId);
  for (let i = 0; i < 20; i++) {
    const p = await kv.get<Sealed>(K3ds(holderId, "pending"));
    if (!p.value) return false;
    const ok = await kv.atomic().check(p).set(K3ds(holderId, "current"), p.value)
      .delete(K3ds(holderId, "pending")).commit();
    if (ok.ok) return true;
  }
  throw new IssuerError("conflict", "promoting the 3-D Secure password lost too many races");
}

export async function reveal(
  kv: Deno.Kv,
  key: CryptoKey,
  holderId: string,
): Promise<string | null> {
  checkHolder(holderId);
  const e = await kv.get<Sealed>(K3ds(holderId, "current"));
  if (!e.value) return null;
  try {
    return new TextDecoder().decode(
      await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: e.value.iv, additionalData: enc.encode(`3ds:${holderId}`) },
        key,
        e.value.ct,
      ),
    );
  } catch {
    throw new IssuerError("vault_unreadable", "The 3-D Secure password cannot be decrypted");
  }
}
