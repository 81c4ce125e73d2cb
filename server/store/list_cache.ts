import { listValues } from "./kv.ts";

/** Records one cache keeps in memory, at most (least recently used owner first out). */
const MAX_RECORDS = 100_000;

/**
 * A user's list read on every pwalists (2,000 requests, 5,000 transactions: tens to a
 * hundred ms from KV) kept in memory, checked against a version key that every write of the
 * list bumps in its own atomic operation (`bump`): one get of that key's versionstamp tells
 * whether the copy is current, whichever process wrote (server, CLI, another isolate). The
 * version is read before the list, so a copy is never older than its stamp. Lists come back
 * shared and with frozen records: callers copy before they sort or change anything.
 */
export class ListCache<T> {
  readonly #lists = new Map<string, { stamp: string; values: readonly T[] }>();
  #count = 0;

  constructor(
    private kv: Deno.Kv,
    private name: string,
    private prefix: (owner: string) => Deno.KvKey,
  ) {}

  #version(owner: string): Deno.KvKey {
    return [`${this.name}_version`, owner];
  }

  /** Adds the version bump to a write of `owner`'s list. */
  bump(op: Deno.AtomicOperation, owner: string): Deno.AtomicOperation {
    return op.sum(this.#version(owner), 1n);
  }

  async list(owner: string): Promise<readonly T[]> {
    const version = await this.kv.get(this.#version(owner));
    const hit = this.#lists.get(owner);
    if (hit && hit.stamp === version.versionstamp) {
      this.#lists.delete(owner); // most recently used last
      this.#lists.set(owner, hit);
      return hit.values;
    }
    const values = await listValues<T>(this.kv, this.prefix(owner));
    values.forEach((v) => Object.freeze(v));
    if (hit) this.#forget(owner);
    // A list never written through bump() has no stamp: it is read every time.
    if (version.versionstamp && values.length <= MAX_RECORDS) {
      this.#lists.set(owner, { stamp: version.versionstamp, values });
      this.#count += values.length;
      for (const [o] of this.#lists) {
        if (this.#count <= MAX_RECORDS) break;
        this.#forget(o);
      }
    }
    return values;
  }

  #forget(owner: string) {
    this.#count -= this.#lists.get(owner)?.values.length ?? 0;
    this.#lists.delete(owner);
  }
}
