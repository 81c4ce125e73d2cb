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

  /** The key whose versionstamp says whether a kept copy of `owner`'s list is current. */
  versionKey(owner: string): Deno.KvKey {
    return [`${this.name}_version`, owner];
  }

  #version(owner: string): Deno.KvKey {
    return this.versionKey(owner);
  }

  /** Adds the version bump to a write of `owner`'s list. */
  bump(op: Deno.AtomicOperation, owner: string): Deno.AtomicOperation {
    return op.sum(this.#version(owner), 1n);
  }

  /**
   * `owner`'s list. `read`: the version entry when the caller read it already (in one getMany
   * with other keys, server/store/user_lists.ts), just before this call.
   */
  async list(owner: string, read?: Deno.KvEntryMaybe<unknown>): Promise<readonly T[]> {
    const version = read ?? await this.kv.get(this.#version(owner));
    const hit = this.#lists.get(owner);
    if (hit && hit.stamp === version.versionstamp) {
      this.#lists.delete(owner); // most recently used last
      this.#lists.set(owner, hit);
      return hit.values;
    }
    const values = await listValues<T>(this.kv, this.prefix(owner));
    values.forEach((v) => Object.freeze(v));
    if (hit) this.#forget(owner);
    let stamp = version.versionstamp;
    if (!stamp && !values.length) {
      // An owner with nothing yet (most approvers' requests, most transaction lists): its
      // version is created, checked absent — a write since the version was read bumped it
      // and fails the check — so the empty list is kept like any other, not read every time.
      const made = await this.kv.atomic().check(version).sum(this.#version(owner), 0n).commit();
      if (made.ok) stamp = made.versionstamp;
    }
    // A list never written through bump() has no stamp: it is read every time.
    if (stamp && values.length <= MAX_RECORDS) {
      this.#lists.set(owner, { stamp, values });
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
