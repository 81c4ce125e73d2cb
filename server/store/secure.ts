/**
 * A user's 3-D Secure settings (spec §3 Secure settings). The password itself is held by the
 * card issuer (server/issuer/), like the rest of the card secrets: here are the phone, whether
 * a password is set, and a change waiting for its emailed or texted PIN.
 */
export interface SecureRecord {
  userOid: string;
  countryPrefix: string;
  phoneNumber: string;
  /** A password was confirmed by PIN: 3-D Secure is defined (is3DSecureDefined). */
  defined: boolean;
  /** A change saved but not yet confirmed by its PIN (spec §4 Secure panel flow). */
  pending?: {
    countryPrefix: string;
    phoneNumber: string;
    /** The issuer holds the new password in its pending slot. */
    passwordChanged: boolean;
    /** SHA-256 of salt ‖ PIN; the PIN itself went out by SMS or email and is not kept. */
    pinHash: string;
    salt: string;
    expiresAt: number;
    tries: number;
  };
  updatedAt: number;
}

export class SecureRepo {
  constructor(private kv: Deno.Kv) {}

  async get(userOid: string): Promise<Deno.KvEntryMaybe<SecureRecord>> {
    return await this.kv.get<SecureRecord>(["secure", userOid]);
  }

  put(op: Deno.AtomicOperation, r: SecureRecord): Deno.AtomicOperation {
    return op.set(["secure", r.userOid], r);
  }
}
