/**
 * Counted answers to the card's secrets (engineering.md §5 "count before you evaluate"): a CVC sent
 * by a merchant and a 3-D Secure password are each counted by one checked KV write before they are
 * compared, so N parallel guesses count N; a right answer gives its count back. Limits are per
 * target (the card for CVCs, the cardholder for 3-D Secure), never per caller.
 */
import { sha256 } from "./encoding.ts";
import { IssuerError } from "./errors.ts";
import { PREFIX } from "./records.ts";

export type TryKind = "cvc" | "3ds";

/** Wrong answers allowed per target within WINDOW_MS, then every answer is refused unread. */
export const MAX_TRIES = 5;
export const WINDOW_MS = 3_600_000;

interface Tries {
  n: number;
  /** Epoch ms when the window started. */
  since: number;
}

const key = (kind: TryKind, target: string) => [PREFIX, "tries", kind, target];

/** Counts one answer; false when the target's limit is spent (the answer must not be read). */
export async function spendTry(
  kv: Deno.Kv,
  kind: TryKind,
  target: string,
  now: number,
): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    const e = await kv.get<Tries>(key(kind, target));
    const cur = e.value && now - e.value.since < WINDOW_MS ? e.value : { n: 0, since: now };
    if (cur.n >= MAX_TRIES) return false;
    const next: Tries = { n: cur.n + 1, since: cur.since };
    const ok = await kv.atomic().check(e).set(key(kind, target), next, {
      expireIn: WINDOW_MS + 60_000,
    }).commit();
    if (ok.ok) return true;
  }
  throw new IssuerError("conflict", "Too many concurrent answers; retry");
}

/** A right answer: its count is given back (wrong ones stay counted for the window). */
export async function giveBackTry(kv: Deno.Kv, kind: TryKind, target: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const e = await kv.get<Tries>(key(kind, target));
    if (!e.value || e.value.n === 0) return;
    const next: Tries = { ...e.value, n: e.value.n - 1 };
    if ((await kv.atomic().check(e).set(key(kind, target), next).commit()).ok) return;
  }
}

/** Compares two secrets in time independent of where they differ (digests of both). */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const [x, y] = [await sha256(`s:${a}`), await sha256(`s:${b}`)];
  let diff = x.length ^ y.length;
  for (let i = 0; i < x.length; i++) diff |= x.charCodeAt(i) ^ y.charCodeAt(i % y.length);
  return diff === 0;
}
