import type { SaltedHash } from "../domain/secrets.ts";

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
  /** The verification code hash this device claimed (pending only). */
  codeHash?: string;
  pin?: SaltedHash;
  pinFailures: number;
  createdAt: number;
  activatedAt?: number;
  screen?: { w: number; h: number };
  push?: { token: string; isIOS: boolean; at: number };
}

export interface TokenRef {
  deviceId: string;
  userOid: string;
}

/** Devices by id, plus the token-hash index bearer auth reads (no double hashing per call). */
export class DeviceRepo {
  constructor(private kv: Deno.Kv) {}

  async get(deviceId: string): Promise<Deno.KvEntryMaybe<Device>> {
    return await this.kv.get<Device>(["device", deviceId]);
  }

  async byTokenHash(hash: string): Promise<TokenRef | null> {
    return (await this.kv.get<TokenRef>(["token", hash])).value;
  }

  put(op: Deno.AtomicOperation, d: Device): Deno.AtomicOperation {
    return op.set(["device", d.deviceId], d)
      .set(["token", d.tokenHash], { deviceId: d.deviceId, userOid: d.userOid })
      .set(["device_by_user", d.userOid, d.deviceId], true);
  }

  /** Removes a device and everything that lets it in. */
  remove(op: Deno.AtomicOperation, d: Device): Deno.AtomicOperation {
    return op.delete(["device", d.deviceId]).delete(["token", d.tokenHash])
      .delete(["device_by_user", d.userOid, d.deviceId]);
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
