/**
 * Verification codes (spec §4, §9: 5 digits). Stored under the hash of the code so a
 * code can be found by value without keeping it in clear; KV expiry removes stale ones.
 *
 * A user has at most one live code: ["vcode_user", userOid] names it, and a new code
 * deletes the previous one in the same atomic write. A code sent through lost activation
 * is bound to the device that asked for it (["vcode_device", deviceId]): only that device
 * can present it, and its wrong guesses count against that code alone.
 */
export interface VerificationCodeRecord {
  codeHash: string;
  userOid: string;
  expiresAt: number;
  /** The device that checked this code first; another device replaying it is refused. */
  claimedBy?: string;
  /** Lost activation: the device that asked for this code; no other may present it. */
  boundTo?: string;
  /** A bound code mailed beside the user's live code, which it leaves in place. */
  beside?: boolean;
}

export class CodeRepo {
  constructor(private kv: Deno.Kv) {}

  async get(codeHash: string): Promise<Deno.KvEntryMaybe<VerificationCodeRecord>> {
    return await this.kv.get<VerificationCodeRecord>(["vcode", codeHash]);
  }

  /** The user's live code pointer (its hash), read so a new code can replace it atomically. */
  async ofUser(userOid: string): Promise<Deno.KvEntryMaybe<string>> {
    return await this.kv.get<string>(["vcode_user", userOid]);
  }

  /** The code bound to a device by lost activation, if any. */
  async boundTo(deviceId: string): Promise<Deno.KvEntryMaybe<string>> {
    return await this.kv.get<string>(["vcode_device", deviceId]);
  }

  /** `pointer: false` keeps the user's live code as it is (a bound code beside it). */
  put(op: Deno.AtomicOperation, r: VerificationCodeRecord, now: number, opts = { pointer: true }) {
    const expireIn = Math.max(1, r.expiresAt - now);
    op.set(["vcode", r.codeHash], r, { expireIn });
    if (opts.pointer) op.set(["vcode_user", r.userOid], r.codeHash, { expireIn });
    if (r.boundTo) op.set(["vcode_device", r.boundTo], r.codeHash, { expireIn });
    return op;
  }

  /** Removes a code and the pointers to it (used, revoked or guessed to death). */
  remove(op: Deno.AtomicOperation, r: Pick<VerificationCodeRecord, "codeHash" | "boundTo">) {
    op.delete(["vcode", r.codeHash]);
    if (r.boundTo) op.delete(["vcode_device", r.boundTo]);
    return op;
  }
}
