import type { SaltedHash } from "../secrets.ts";
import type { User } from "./users.ts";
import { keepBounded } from "./bounded.ts";

/**
 * A registered device (spec §4 Device activation). `pending` after the code was checked,
 * `active` once the PIN is confirmed; only active devices authenticate bearer calls.
 */
export interface Device {
  deviceId: string;
  userOid: string;
  status: "pending" | "active";
  /** Hash of the bearer token; the token itself is never stored. */
  tokenHash: string;
  /**
   * The token this one replaced at the last unlock, honoured until the new one is first
   * used: a rotation whose answer was lost must not turn the right PIN into a failure.
   */
  prevTokenHash?: string;
  /** When the current token was handed out (activation or the last unlock). */
  tokenIssuedAt?: number;
  /**
   * Tokens this device held before `prevTokenHash`, newest first, each with the time it
   * stopped being current; at most KEPT_TOKENS, replaced at most EARLIER_TOKEN_MS before
   * the current one was issued. Never a bearer and not in the token index: with the right PIN
   * they unlock (and get the current token), because a browser killed before it wrote its
   * cookies to disk (every ~30 s) may start on an older copy of its sealed token (spec §4).
   */
  oldTokens?: EarlierToken[];
  /** Last unlock or first use of the day: tokens idle for TOKEN_IDLE_DAYS expire. */
  lastSeenAt?: number;
  /**
   * The device's passkey (server/domain/passkeys.ts), a second way to unlock besides the PIN:
   * WebAuthn public data only. Removed with the device (unregistration, five failures).
   */
  passkey?: DevicePasskey;
  /** The verification code hash this device claimed (pending only). */
  codeHash?: string;
  pin?: SaltedHash;
  pinFailures: number;
  createdAt: number;
  activatedAt?: number;
  screen?: { w: number; h: number };
  push?: { token: string; isIOS: boolean; at: number };
}

/** A WebAuthn credential registered for one device: what verifying its assertions needs. */
export interface DevicePasskey {
  /** base64url credential id. */
  id: string;
  /** base64url COSE public key. */
  publicKey: string;
  /** The authenticator's signature counter at the last unlock (0: it keeps none). */
  counter: number;
  transports?: string[];
  createdAt: number;
}

export interface EarlierToken {
  hash: string;
  replacedAt: number;
}

/** How many earlier tokens a device keeps for the PIN check (never for bearer use). */
export const KEPT_TOKENS = 8;
/**
 * How long before the current token was issued an earlier one may have been replaced and
 * still unlock with the right PIN: Chromium's cookie flush (~30 s) with a wide margin. Older
 * copies (a profile copied before the owner's last unlock but one) stay worthless.
 */
export const EARLIER_TOKEN_MS = 2 * 60_000;

/**
 * `tokens` (newest first) without `except` and repeats, replaced since `since`, cut to
 * KEPT_TOKENS: the device's earlier tokens after a rotation or the first use of a new token.
 */
export function keptTokens(
  tokens: (EarlierToken | null)[],
  except: (string | undefined)[],
  since: number,
): EarlierToken[] {
  const out: EarlierToken[] = [];
  for (const t of tokens) {
    if (!t || t.replacedAt < since || except.includes(t.hash)) continue;
    if (!out.some((o) => o.hash === t.hash)) out.push(t);
  }
  return out.slice(0, KEPT_TOKENS);
}

export interface TokenRef {
  deviceId: string;
  userOid: string;
}

/**
 * Devices by id, plus the token-hash index bearer auth reads (no double hashing per call).
 * The index holds exactly a device's `tokenHash` and `prevTokenHash`; `oldTokens` are
 * read only through the device record (the PIN check knows the device id).
 */
/** Token references this process remembers (about 150 bytes each). */
const MAX_REFS = 20_000;

export class DeviceRepo {
  /**
   * The reference of each token hash this process has seen in the index: a hash names one
   * device and user for as long as its index entry exists, so the next call of that token
   * reads the entry, the device and the user at once (byToken). The entry is still read
   * every time: a revoked token (its entry deleted) fails as before. Only hashes found in
   * the index are kept, at most MAX_REFS: an unknown token adds nothing.
   */
  private refs = new Map<string, TokenRef>();

  constructor(private kv: Deno.Kv) {}

  /** How many token references this process remembers (bounded: MAX_REFS). */
  get rememberedTokens(): number {
    return this.refs.size;
  }

  /**
   * The device and the user a token hash names, or null when the index has no such hash.
   * One store read for a token this process has seen, else two (the index, then both).
   * The caller checks the device (status, hashes, idle) and that it belongs to the user.
   */
  async byToken(hash: string): Promise<[Deno.KvEntryMaybe<Device>, User | null] | null> {
    const known = this.refs.get(hash);
    if (known) {
      const [entry, device, user] = await this.kv.getMany<[TokenRef, Device, User]>([
        ["token", hash],
        ["device", known.deviceId],
        ["user", known.userOid],
      ]);
      const ref = entry.value;
      if (ref?.deviceId === known.deviceId && ref.userOid === known.userOid) {
        return [device, user.value];
      }
      this.refs.delete(hash);
      return ref ? await this.withUser(ref) : null;
    }
    const ref = await this.byTokenHash(hash);
    if (!ref) return null;
    keepBounded(this.refs, hash, { deviceId: ref.deviceId, userOid: ref.userOid }, MAX_REFS);
    return await this.withUser(ref);
  }

  async get(deviceId: string): Promise<Deno.KvEntryMaybe<Device>> {
    return await this.kv.get<Device>(["device", deviceId]);
  }

  async byTokenHash(hash: string): Promise<TokenRef | null> {
    return (await this.kv.get<TokenRef>(["token", hash])).value;
  }

  /**
   * The device a token reference names and the user it names, in one store read (every
   * bearer call does this: one round trip fewer than device, then user). The caller checks
   * that the device still belongs to that user.
   */
  async withUser(ref: TokenRef): Promise<[Deno.KvEntryMaybe<Device>, User | null]> {
    const [device, user] = await this.kv.getMany<[Device, User]>([
      ["device", ref.deviceId],
      ["user", ref.userOid],
    ]);
    return [device, user.value];
  }

  put(op: Deno.AtomicOperation, d: Device): Deno.AtomicOperation {
    const ref = { deviceId: d.deviceId, userOid: d.userOid };
    op.set(["device", d.deviceId], d).set(["token", d.tokenHash], ref)
      .set(["device_by_user", d.userOid, d.deviceId], true);
    if (d.prevTokenHash) op.set(["token", d.prevTokenHash], ref);
    return op;
  }

  /** Drops the token index entry of a hash the device no longer honours. */
  forgetToken(op: Deno.AtomicOperation, hash: string): Deno.AtomicOperation {
    return op.delete(["token", hash]);
  }

  /** Removes a device and everything that lets it in. */
  remove(op: Deno.AtomicOperation, d: Device): Deno.AtomicOperation {
    op.delete(["device", d.deviceId]).delete(["token", d.tokenHash])
      .delete(["device_by_user", d.userOid, d.deviceId]);
    if (d.prevTokenHash) op.delete(["token", d.prevTokenHash]);
    return op;
  }

  async forUser(userOid: string): Promise<Device[]> {
    const out: Device[] = [];
    for await (const e of this.kv.list({ prefix: ["device_by_user", userOid] })) {
      const d = (await this.get(String(e.key[2]))).value;
      if (d) out.push(d);
    }
    return out;
  }
}
