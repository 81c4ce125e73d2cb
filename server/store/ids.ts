/**
 * Readable sequential numbers (request ids 'R000001', …) without one KV key on every
 * write's path (engineering.md §5: 'no global counters on hot paths').
 *
 * Like a database sequence with a cache: the counter key holds the highest number any
 * process has reserved; a process reserves a block of numbers with one checked atomic write
 * of that key, then hands them out from memory. Concurrent callers in one process are
 * served one after another (a promise chain), so they never get the same number, and they
 * get them in increasing order. Across processes sharing the KV, numbers stay unique (a block
 * belongs to the one process whose write succeeded) but interleave: process A may hand out
 * 51 after process B handed out 101.
 *
 * Gaps are accepted: the unused rest of a block is lost when its process stops (a restart,
 * a new deployment, an idle isolate), and so is a number whose write then failed. Numbers
 * are identifiers, never counts.
 */
export interface IdAllocatorOptions {
  /** Numbers reserved per KV write: more means fewer writes and larger gaps after a restart. */
  block?: number;
  /** Checked writes tried before giving up (each conflict means another process got a block). */
  attempts?: number;
}

/** The error an allocator throws when it could not reserve a block (the caller answers 409). */
export class IdsExhausted extends Error {
  constructor(key: Deno.KvKey, attempts: number) {
    super(`could not reserve ids at ${JSON.stringify(key)} after ${attempts} attempts`);
    this.name = "IdsExhausted";
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class IdAllocator {
  readonly block: number;
  readonly attempts: number;
  /** The next number to hand out, and the last one of the reserved block. */
  #next = 1;
  #last = 0;
  /** Every call waits for the one before it: one reservation at a time, numbers in order. */
  #chain: Promise<unknown> = Promise.resolve();

  constructor(private kv: Deno.Kv, readonly key: Deno.KvKey, opts: IdAllocatorOptions = {}) {
    this.block = opts.block ?? 50;
    this.attempts = opts.attempts ?? 100;
    if (!Number.isInteger(this.block) || this.block < 1) throw new RangeError("block < 1");
  }

  /**
   * The next number: unique among all processes on this KV, greater than every number this
   * allocator handed out before. Costs a KV write once per block only.
   */
  next(): Promise<number> {
    const p = this.#chain.then(async () => {
      if (this.#next > this.#last) await this.#reserve();
      return this.#next++;
    });
    // A failed reservation fails its caller only; the next caller tries again.
    this.#chain = p.catch(() => {});
    return p;
  }

  /**
   * One checked bump of the counter by a whole block; a conflict (another process took a
   * block meanwhile) re-reads and tries again after a short random pause, so processes
   * starting together do not collide in lockstep.
   */
  async #reserve(): Promise<void> {
    for (let i = 0; i < this.attempts; i++) {
      const cur = await this.kv.get<number>(this.key);
      const from = cur.value ?? 0;
      const to = from + this.block;
      if ((await this.kv.atomic().check(cur).set(this.key, to).commit()).ok) {
        this.#next = from + 1;
        this.#last = to;
        return;
      }
      await sleep(Math.random() * Math.min(50, 2 ** Math.min(i, 6)));
    }
    throw new IdsExhausted(this.key, this.attempts);
  }
}
