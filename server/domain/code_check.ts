import type { Deps } from "./env.ts";
import { tooMany } from "../errors.ts";
import type { VerificationCodeRecord } from "../store/codes.ts";
import type { User } from "../store/users.ts";
import { present, sendActivation } from "./activation.ts";
import { mailBoundCode } from "./lost_activation.ts";
import { sha256 } from "../secrets.ts";

/**
 * The activation-code check (spec §7 pwacheckvalidation), hardened against brute force.
 * Codes are 5 digits (spec §9), so what an attacker can evaluate is what matters; every
 * check is counted before the code is looked at (engineering.md §5). The arithmetic behind these
 * numbers is in docs/security.md.
 */
export const CODE_LIMITS = {
  /** Checks by one device id per quarter hour (an attacker rotates ids: a courtesy limit). */
  perDevice: 10,
  /** Tries a device gets at the code bound to it before that code dies. */
  boundTries: 3,
  /** Checks past the organisation's budget, per client address (or IPv6 /64), per quarter. */
  overflowPerAddress: 20,
  /**
   * Codes mailed to one user per day by the step past a throttled address: it bounds the
   * mail strangers can cause (they must guess the user's live code, blind, for each one).
   */
  stepUpMailsPerUser: 3,
};
const QUARTER = 900_000;
const DAY = 86_400_000;

export type CodeCheck =
  | { kind: "valid"; entry: Deno.KvEntry<VerificationCodeRecord>; user: User }
  /** A right code presented past the budget: replaced by one bound to this device, mailed. */
  | { kind: "resent" }
  /**
   * Past a throttled address: answered alike for right and wrong codes; a right one had a
   * code bound to this device mailed to its owner, beside the code they hold.
   */
  | { kind: "mailedIfRight" }
  | { kind: "invalid" };

/**
 * Decides one code check by a device:
 * - A device that asked for a code through lost activation has that code bound to it: only
 *   it can present the code, its tries are counted per code, and strangers' guesses never
 *   reach it, so no one else's failures can refuse it.
 * - Any other check first takes one unit of the organisation's daily budget. Within it,
 *   the code is evaluated as usual (a success gives the unit back). Past it ("safe mode"),
 *   checks are throttled per address and a right code does not activate: it is revoked and
 *   a new code, bound to the presenting device, is mailed to its owner. The rightful owner
 *   types the new code; an attacker who guessed right gets a mailed code they cannot read.
 * - Past the address's share of safe mode, the check is not refused (behind one NAT that
 *   would refuse a whole office for strangers' misses): it is answered blind, the same for
 *   every code, so nothing is learnt from it; a right code stays live and a code bound to
 *   the presenting device is mailed to its owner (see {@link stepUp}).
 */
export async function checkActivationCode(
  deps: Deps,
  deviceId: string,
  address: string,
  code: string,
): Promise<CodeCheck> {
  const { store, config } = deps;
  const limits = store.rateLimits;
  if (!(await limits.hit("code-dev", deviceId, CODE_LIMITS.perDevice, QUARTER))) {
    throw tooMany();
  }
  const codeHash = await sha256(code);
  const bound = await store.codes.boundTo(deviceId);
  if (bound.value) return await checkBound(deps, deviceId, bound.value, codeHash);

  const within = await limits.hit("code-org", "all", config.ACTIVATION_CHECKS_PER_DAY, DAY);
  if (
    !within && !(await limits.hit("code-addr", address, CODE_LIMITS.overflowPerAddress, QUARTER))
  ) {
    return await stepUp(deps, deviceId, codeHash);
  }
  const entry = await store.codes.get(codeHash);
  const v = entry.value;
  const usable = v && v.expiresAt > deps.now() && !v.boundTo &&
    (!v.claimedBy || v.claimedBy === deviceId);
  const user = usable ? present(await store.users.get(v.userOid)) : null;
  if (!user) return { kind: "invalid" };
  if (within) {
    await limits.refund("code-org", "all");
    return { kind: "valid", entry: entry as Deno.KvEntry<VerificationCodeRecord>, user };
  }
  await mailBoundCode(deps, user, deviceId);
  return { kind: "resent" };
}

/**
 * The throttled address's check (docs/security.md, activation codes): evaluated, never activating
 * and never answered apart. A right code is left as it is (strangers guessing it cannot
 * revoke it) and a new code, bound to this device and living beside it, is mailed to its
 * owner, at most {@link CODE_LIMITS.stepUpMailsPerUser} a day. The owner types the mailed
 * code on this device (its own tries, which strangers' guesses never reach); an attacker who
 * guessed right without knowing it holds a device whose code went to someone else's mail.
 */
async function stepUp(deps: Deps, deviceId: string, codeHash: string): Promise<CodeCheck> {
  const { store } = deps;
  const v = (await store.codes.get(codeHash)).value;
  const usable = v && v.expiresAt > deps.now() && !v.boundTo &&
    (!v.claimedBy || v.claimedBy === deviceId);
  const user = usable ? present(await store.users.get(v.userOid)) : null;
  if (
    user &&
    await store.rateLimits.hit("code-stepup", user.oid, CODE_LIMITS.stepUpMailsPerUser, DAY)
  ) {
    await sendActivation(deps, user, { boundTo: deviceId, beside: true });
  }
  return { kind: "mailedIfRight" };
}

/** A device with a bound code: its tries count against that code, which dies at the last. */
async function checkBound(
  deps: Deps,
  deviceId: string,
  boundHash: string,
  codeHash: string,
): Promise<CodeCheck> {
  const { store } = deps;
  const ok = await store.rateLimits.hit("code-bound", boundHash, CODE_LIMITS.boundTries, DAY);
  const entry = await store.codes.get(boundHash);
  const v = entry.value;
  if (!v || v.boundTo !== deviceId || v.expiresAt <= deps.now()) return { kind: "invalid" };
  if (ok && codeHash === boundHash) {
    const user = present(await store.users.get(v.userOid));
    if (user) return { kind: "valid", entry: entry as Deno.KvEntry<VerificationCodeRecord>, user };
  }
  const tries = await store.rateLimits.peek("code-bound", boundHash);
  if (!ok || tries >= CODE_LIMITS.boundTries) {
    // Guessed to death: the code goes, and the device may ask for a new one.
    await store.codes.remove(store.kv.atomic().check(entry), v).commit();
  }
  return { kind: "invalid" };
}
