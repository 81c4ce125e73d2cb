/** A simulator on in-memory KV with a clock the test moves; shared by the issuer tests. */
import assert from "node:assert/strict";
import {
  type CreateCardParams,
  createIssuer,
  type Issuer,
  IssuerError,
  type IssuerErrorCode,
  loadIssuerKey,
} from "../../server/issuer/mod.ts";

/** 2026-01-15 10:00 UTC. */
export const T0 = Date.UTC(2026, 0, 15, 10);
export const DAY = 86_400_000;

export interface Fixture {
  kv: Deno.Kv;
  key: CryptoKey;
  issuer: Issuer;
  clock: { t: number };
  [Symbol.asyncDispose](): Promise<void>;
}

export async function fixture(opts: { revealTtlMs?: number } = {}): Promise<Fixture> {
  const kv = await Deno.openKv(":memory:");
  const key = await loadIssuerKey({ APP_ENV: "development", KV_PATH: ":memory:", onDeploy: false });
  const clock = { t: T0 };
  const issuer = createIssuer("simulator", { kv, key, now: () => clock.t, ...opts });
  return {
    kv,
    key,
    issuer,
    clock,
    [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
  };
}

let n = 0;
/** A one-off EUR card order, unique key unless given. */
export const order = (over: Partial<CreateCardParams> = {}): CreateCardParams => ({
  idempotencyKey: `req-${++n}`,
  cardholderName: "Ada Lovelace",
  brand: "visa",
  currency: "EUR",
  amount: 12_345,
  validUntil: "2026-03-31",
  metadata: { requestOid: `R${n}` },
  ...over,
});

/** Awaits `p` and checks it rejects with an IssuerError of `code`. */
export async function rejectsWith(p: Promise<unknown>, code: IssuerErrorCode) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof IssuerError, `IssuerError expected, got ${e}`);
    assert.equal(e.code, code, e.message);
    return true;
  });
}

/** Every KV entry under a prefix. */
export async function entries(kv: Deno.Kv, prefix: Deno.KvKey = []) {
  const out: Deno.KvEntry<unknown>[] = [];
  for await (const e of kv.list({ prefix })) out.push(e);
  return out;
}
