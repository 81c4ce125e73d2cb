import type { PushSubscriptionJson } from "../push_subscription.ts";

/** A device's push subscription (spec §3 Push registration), indexed under its user for fan-out. */
export interface PushSubscriptionRecord {
  userOid: string;
  deviceId: string;
  subscription: PushSubscriptionJson;
  isIOS: boolean;
  at: number;
}

/**
 * ["push_sub", userOid, deviceId] → the subscription: a user's devices are one prefix read.
 * Written in the same atomic operation as the device's own `push` field (pwaregisterpushtoken);
 * dropped when the push service answers 404/410 or the device is unregistered.
 */
export class PushSubscriptionRepo {
  constructor(private kv: Deno.Kv) {}

  key(userOid: string, deviceId: string): Deno.KvKey {
    return ["push_sub", userOid, deviceId];
  }

  async get(
    userOid: string,
    deviceId: string,
  ): Promise<Deno.KvEntryMaybe<PushSubscriptionRecord>> {
    return await this.kv.get<PushSubscriptionRecord>(this.key(userOid, deviceId));
  }

  put(op: Deno.AtomicOperation, r: PushSubscriptionRecord): Deno.AtomicOperation {
    return op.set(this.key(r.userOid, r.deviceId), r);
  }

  remove(op: Deno.AtomicOperation, userOid: string, deviceId: string): Deno.AtomicOperation {
    return op.delete(this.key(userOid, deviceId));
  }

  async forUser(userOid: string): Promise<PushSubscriptionRecord[]> {
    const out: PushSubscriptionRecord[] = [];
    const it = this.kv.list<PushSubscriptionRecord>({ prefix: ["push_sub", userOid] });
    for await (const e of it) out.push(e.value);
    return out;
  }

  /** Users with at least one subscription (the overdue check looks only at them). */
  async users(): Promise<string[]> {
    const out = new Set<string>();
    for await (const e of this.kv.list({ prefix: ["push_sub"] }, { batchSize: 1000 })) {
      out.add(String(e.key[1]));
    }
    return [...out];
  }

  /**
   * Drops a subscription the push service no longer knows, unless the device registered a
   * new one meanwhile (another endpoint): that one is alive. True when dropped.
   */
  async dropGone(userOid: string, deviceId: string, endpoint: string): Promise<boolean> {
    for (let i = 0; i < 5; i++) {
      const e = await this.get(userOid, deviceId);
      if (!e.value || e.value.subscription.endpoint !== endpoint) return false;
      if ((await this.kv.atomic().check(e).delete(e.key).commit()).ok) return true;
    }
    return false;
  }
}
