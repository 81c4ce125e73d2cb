/**
 * Deno KV's JavaScript face for a store that is not Deno KV (the PostgreSQL store, pg_kv.ts):
 * a port of Deno v2.9.5's ext/kv/01_db.ts (Kv, AtomicOperation, KvListIterator; MIT licence,
 * copyright the Deno authors) over the checks its native ops make (kv_ops.ts, from
 * ext/kv/lib.rs). So what Deno KV accepts, this accepts with the same answer, and what it
 * refuses, this refuses with the same error type and message, before anything is written;
 * values are serialised as Deno KV serialises them. Deno's own KV test suite holds it to that
 * (tests/kv_suite/). Queues are refused (Deno Deploy and KV Connect have none either).
 */
import { KvOps, type RawEntry, type RawValue } from "./kv_ops.ts";
import type { KvBackend } from "./kv_ops.ts";
import { deserializeValue, serializeValue } from "./kv_values.ts";
import { FrontListIterator } from "./kv_front_list.ts";

export const QUEUES_REFUSED = "Queues are not supported by the PostgreSQL store";
const COMMIT_VERSIONSTAMP = Symbol("KvCommitVersionstamp");

function validateExpireIn(expireIn: number | undefined): void {
  if (expireIn === undefined) return;
  if (!Number.isInteger(expireIn) || expireIn < 0) {
    throw new TypeError(`expireIn must be a non-negative integer: received ${expireIn}`);
  }
}

function entryOf(e: RawEntry): Deno.KvEntry<unknown> {
  return { key: e.key, value: deserializeValue(e.value), versionstamp: e.versionstamp };
}

type RawMutation = [Deno.KvKey, string, RawValue | null, number | undefined];
type Consistency = Deno.KvConsistencyLevel;

/** A Deno.Kv over a backend; `inspect` keeps what Deno KV prints (no connection string). */
export class FrontKv {
  readonly #ops: KvOps;

  constructor(backend: KvBackend) {
    this.#ops = new KvOps(backend);
  }

  atomic(): FrontAtomic {
    return new FrontAtomic(this.#ops);
  }

  commitVersionstamp(): symbol {
    return COMMIT_VERSIONSTAMP;
  }

  async get(key: Deno.KvKey, opts?: { consistency?: Consistency }) {
    const [entries] = await this.#ops.snapshotRead([[null, key, null, 1, false, null]]);
    void opts;
    return entries.length ? entryOf(entries[0]) : { key, value: null, versionstamp: null };
  }

  async getMany(keys: Deno.KvKey[], _opts?: { consistency?: Consistency }) {
    const ranges = await this.#ops.snapshotRead(
      keys.map((key) => [null, key, null, 1, false, null]),
    );
    return ranges.map((entries, i) =>
      entries.length ? entryOf(entries[0]) : { key: keys[i], value: null, versionstamp: null }
    );
  }

  async set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) {
    validateExpireIn(options?.expireIn);
    const versionstamp = await write(this.#ops, [], [[
      key,
      "set",
      serializeValue(value),
      options?.expireIn,
    ]]);
    if (versionstamp === null) throw new TypeError("Failed to set value");
    return { ok: true as const, versionstamp };
  }

  async delete(key: Deno.KvKey): Promise<void> {
    const r = await write(this.#ops, [], [[key, "delete", null, undefined]]);
    if (!r) throw new TypeError("Failed to set value");
  }

  list(
    selector: Deno.KvListSelector,
    options: Deno.KvListOptions = {},
  ): FrontListIterator {
    if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit <= 0)) {
      throw new Error(`Limit must be a positive integer: received ${options.limit}`);
    }
    let batchSize = options.batchSize ?? (options.limit ?? 100);
    if (!Number.isInteger(batchSize) || batchSize <= 0) {
      throw new Error(`batchSize must be a positive integer: received ${batchSize}`);
    }
    if (options.batchSize === undefined && batchSize > 500) batchSize = 500;
    const ops = this.#ops;
    return new FrontListIterator({
      limit: options.limit,
      selector,
      cursor: options.cursor,
      reverse: options.reverse ?? false,
      batchSize,
      ops,
      pullBatch: async (sel, cursor, reverse) => {
        const [entries] = await ops.snapshotRead([[
          Object.hasOwn(sel, "prefix") ? sel.prefix! : null,
          Object.hasOwn(sel, "start") ? sel.start! : null,
          Object.hasOwn(sel, "end") ? sel.end! : null,
          batchSize,
          reverse,
          cursor ?? null,
        ]]);
        return entries.map(entryOf);
      },
    });
  }

  enqueue(): never {
    throw new TypeError(QUEUES_REFUSED);
  }

  listenQueue(): never {
    throw new TypeError(QUEUES_REFUSED);
  }

  /** Deno KV's watch (ext/kv/01_db.ts), fed by the backend's change signal. */
  watch(keys: Deno.KvKey[], options: { raw?: boolean } = {}): ReadableStream<unknown[]> {
    const raw = options.raw ?? false;
    const updates = this.#ops.watch(keys);
    const last: (Deno.KvEntryMaybe<unknown> | undefined)[] = Array.from({ length: keys.length });
    return new ReadableStream({
      async pull(controller) {
        while (true) {
          let next: IteratorResult<(RawEntry | null)[]>;
          try {
            next = await updates.next();
          } catch (err) {
            controller.error(err);
            return;
          }
          if (next.done) {
            controller.close();
            return;
          }
          let changed = false;
          for (let i = 0; i < keys.length; i++) {
            const u = next.value[i];
            if (last[i] !== undefined && (u?.versionstamp ?? null) === last[i]?.versionstamp) {
              continue;
            }
            changed = true;
            last[i] = u === null
              ? { key: keys[i].slice(), value: null, versionstamp: null }
              : entryOf(u);
          }
          if (!changed && !raw) continue;
          controller.enqueue(last.map((e) => ({ ...e! })));
          return;
        }
      },
      async cancel() {
        await updates.return?.(undefined);
      },
    });
  }

  /**
   * Closes as Deno KV does (a second close throws BadResource): what is in flight settles,
   * what comes after is refused with BadResource, then the backend closes. The promise (Deno
   * KV's close returns nothing) settles when it has, and never rejects.
   */
  close(): Promise<void> {
    this.#ops.close();
    return this.#ops.closed();
  }

  [Symbol.dispose](): void {
    this.#ops.tryClose();
  }

  [Symbol.for("Deno.customInspect")](): string {
    return "Kv {}";
  }
}

async function write(
  ops: KvOps,
  checks: [Deno.KvKey, string | null][],
  mutations: RawMutation[],
): Promise<string | null> {
  for (const m of mutations) {
    const key = m[0];
    if (key.length && m[1] === "set" && key[key.length - 1] === COMMIT_VERSIONSTAMP) {
      m[0] = key.slice(0, key.length - 1);
      m[1] = "setSuffixVersionstampedKey";
    }
  }
  return await ops.atomicWrite(checks, mutations);
}

const AtomicBase = Deno.AtomicOperation as unknown as new (rid: number) => object;

/** Deno.AtomicOperation (instanceof holds), collecting checks and mutations as Deno KV does. */
export class FrontAtomic extends AtomicBase {
  #ops: KvOps;
  #checks: [Deno.KvKey, string | null][] = [];
  #mutations: RawMutation[] = [];

  constructor(ops: KvOps) {
    super(0);
    this.#ops = ops;
  }

  check(...checks: Deno.AtomicCheck[]): this {
    for (const c of checks) this.#checks.push([c.key, c.versionstamp]);
    return this;
  }

  mutate(...mutations: Deno.KvMutation[]): this {
    for (const mutation of mutations) {
      const m = mutation as { key: Deno.KvKey; type: string; value?: unknown; expireIn?: unknown };
      let value: RawValue | null = null;
      let expireIn: number | undefined = undefined;
      switch (m.type) {
        case "delete":
          if (m.value) throw new TypeError("Invalid mutation 'delete' with value");
          break;
        case "set":
          if (typeof m.expireIn === "number") expireIn = m.expireIn;
          validateExpireIn(expireIn);
          /* falls through */
        case "sum":
        case "min":
        case "max":
          if (!Object.hasOwn(m, "value")) {
            throw new TypeError(`Invalid mutation '${m.type}' without value`);
          }
          value = serializeValue(m.value);
          break;
        default:
          throw new TypeError("Invalid mutation type");
      }
      this.#mutations.push([m.key, m.type, value, expireIn]);
    }
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    this.#mutations.push([key, "sum", serializeValue(new Deno.KvU64(n)), undefined]);
    return this;
  }

  min(key: Deno.KvKey, n: bigint): this {
    this.#mutations.push([key, "min", serializeValue(new Deno.KvU64(n)), undefined]);
    return this;
  }

  max(key: Deno.KvKey, n: bigint): this {
    this.#mutations.push([key, "max", serializeValue(new Deno.KvU64(n)), undefined]);
    return this;
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    validateExpireIn(options?.expireIn);
    this.#mutations.push([key, "set", serializeValue(value), options?.expireIn]);
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.#mutations.push([key, "delete", null, undefined]);
    return this;
  }

  enqueue(): never {
    throw new TypeError(QUEUES_REFUSED);
  }

  async commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    const versionstamp = await write(this.#ops, this.#checks, this.#mutations);
    if (versionstamp === null) return { ok: false };
    return { ok: true, versionstamp };
  }

  then(): never {
    throw new TypeError(
      "'Deno.AtomicOperation' is not a promise: did you forget to call 'commit()'",
    );
  }

  [Symbol.for("Deno.privateCustomInspect")](
    inspect: (v: unknown, o: unknown) => string,
    inspectOptions: unknown,
  ): string {
    const lines: string[] = [];
    for (const [key, vs] of this.#checks) {
      lines.push(
        `  check({ key: ${inspect(key, inspectOptions)}, versionstamp: ${
          vs === null ? "null" : `"${vs}"`
        } })`,
      );
    }
    for (const [key, type, raw, expireIn] of this.#mutations) {
      const k = inspect(key, inspectOptions);
      if (type === "delete") {
        lines.push(`  delete(${k})`);
        continue;
      }
      let value: unknown;
      try {
        value = raw === null ? null : deserializeValue(raw);
      } catch {
        value = `[${raw?.kind || "unknown"} value]`;
      }
      const v = inspect(value, inspectOptions);
      lines.push(
        type === "set" && expireIn !== undefined
          ? `  set(${k}, ${v}, { expireIn: ${expireIn} })`
          : `  ${type}(${k}, ${v})`,
      );
    }
    return lines.length ? `AtomicOperation\n${lines.join("\n")}` : "AtomicOperation (empty)";
  }
}
