/**
 * Verification codes (spec §4, §9: 5 digits). Stored under the hash of the code so a
 * code can be found by value without keeping it in clear; KV expiry removes stale ones.
 */
export interface VerificationCodeRecord {
  codeHash: string;
  userOid: string;
  expiresAt: number;
  /** The device that checked this code first; another device replaying it is refused. */
  claimedBy?: string;
}

export class CodeRepo {
  constructor(private kv: Deno.Kv) {}

  async get(codeHash: string): Promise<Deno.KvEntryMaybe<VerificationCodeRecord>> {
    return await this.kv.get<VerificationCodeRecord>(["vcode", codeHash]);
  }

  put(op: Deno.AtomicOperation, r: VerificationCodeRecord, now: number) {
    return op.set(["vcode", r.codeHash], r, { expireIn: Math.max(1, r.expiresAt - now) });
  }

  remove(op: Deno.AtomicOperation, codeHash: string) {
    return op.delete(["vcode", codeHash]);
  }
}
