/**
 * WebAuthn challenges (server/domain/passkeys.ts): one outstanding challenge per device and
 * purpose, kept server-side, short-lived and single-use. A new challenge replaces the
 * previous one; taking a challenge deletes it in a checked write, so of two requests
 * presenting it only one gets it (a replayed assertion finds nothing).
 */
export type ChallengePurpose = "register" | "unlock";

interface ChallengeRecord {
  challenge: string;
  expiresAt: number;
}

export class ChallengeRepo {
  constructor(private kv: Deno.Kv) {}

  async issue(
    deviceId: string,
    purpose: ChallengePurpose,
    challenge: string,
    now: number,
    ttlMs: number,
  ): Promise<void> {
    const rec: ChallengeRecord = { challenge, expiresAt: now + ttlMs };
    // KV expiry removes it eventually; expiresAt is what is enforced.
    await this.kv.set(["webauthn_challenge", deviceId, purpose], rec, { expireIn: ttlMs });
  }

  /**
   * The challenge, removed as it is read; null when none, expired, or taken by another — or,
   * given `expected`, when the outstanding one is another (left in place: it belongs to a newer
   * prompt).
   */
  async take(
    deviceId: string,
    purpose: ChallengePurpose,
    now: number,
    expected?: string,
  ): Promise<string | null> {
    const key = ["webauthn_challenge", deviceId, purpose];
    const entry = await this.kv.get<ChallengeRecord>(key);
    if (!entry.value) return null;
    if (expected !== undefined && entry.value.challenge !== expected) return null;
    const r = await this.kv.atomic().check(entry).delete(key).commit();
    if (!r.ok || entry.value.expiresAt <= now) return null;
    return entry.value.challenge;
  }
}
