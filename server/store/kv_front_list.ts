/**
 * Deno.KvListIterator for the store that is not Deno KV (kv_front.ts): a port of Deno v2.9.5's
 * ext/kv/01_db.ts KvListIterator (MIT licence, copyright the Deno authors) — the selector's
 * checks with Deno KV's messages, batches pulled from the backend, cursors encoded as Deno KV
 * encodes them (kv_ops.ts).
 */
import type { KvOps } from "./kv_ops.ts";

export type Selector = { prefix?: Deno.KvKey; start?: Deno.KvKey; end?: Deno.KvKey };

type PullBatch = (
  selector: Selector,
  cursor: string | undefined,
  reverse: boolean,
) => Promise<Deno.KvEntry<unknown>[]>;

/** Deno.KvListIterator, as ext/kv/01_db.ts has it. */
export class FrontListIterator implements AsyncIterableIterator<Deno.KvEntry<unknown>> {
  #selector: Selector;
  #entries: Deno.KvEntry<unknown>[] | null = null;
  #cursorGen: (() => string) | null = null;
  #done = false;
  #lastBatch = false;
  #pullBatch: PullBatch;
  #limit: number | undefined;
  #count = 0;
  #reverse: boolean;
  #batchSize: number;
  #ops: KvOps;

  constructor(o: {
    limit?: number;
    selector: Deno.KvListSelector;
    cursor?: string;
    reverse: boolean;
    batchSize: number;
    ops: KvOps;
    pullBatch: PullBatch;
  }) {
    const sel = o.selector as Selector;
    const part = (k: "prefix" | "start" | "end") =>
      Object.hasOwn(sel, k) && sel[k] !== undefined ? Object.freeze(sel[k]!.slice()) : undefined;
    const prefix = part("prefix"), start = part("start"), end = part("end");
    if (prefix) {
      if (start && end) {
        throw new TypeError(
          "Selector can not specify both 'start' and 'end' key when specifying 'prefix'",
        );
      }
      this.#selector = start ? { prefix, start } : end ? { prefix, end } : { prefix };
    } else if (start && end) {
      this.#selector = { start, end };
    } else {
      throw new TypeError(
        "Selector must specify either 'prefix' or both 'start' and 'end' key",
      );
    }
    Object.freeze(this.#selector);
    this.#pullBatch = o.pullBatch;
    this.#limit = o.limit;
    this.#reverse = o.reverse;
    this.#batchSize = o.batchSize;
    this.#ops = o.ops;
    this.#cursorGen = o.cursor ? () => o.cursor! : null;
  }

  get cursor(): string {
    if (this.#cursorGen === null) throw new Error("Cannot get cursor before first iteration");
    return this.#cursorGen();
  }

  async next(): Promise<IteratorResult<Deno.KvEntry<unknown>>> {
    if (this.#done || (this.#limit !== undefined && this.#count >= this.#limit)) {
      return { done: true, value: undefined };
    }
    if (!this.#entries?.length && !this.#lastBatch) {
      const batch = await this.#pullBatch(
        this.#selector,
        this.#cursorGen ? this.#cursorGen() : undefined,
        this.#reverse,
      );
      batch.reverse();
      this.#entries = batch;
      if (batch.length < this.#batchSize) this.#lastBatch = true;
    }
    const entry = this.#entries?.pop();
    if (!entry) {
      this.#done = true;
      this.#cursorGen = () => "";
      return { done: true, value: undefined };
    }
    const sel = this.#selector;
    this.#cursorGen = () =>
      this.#ops.encodeCursor([sel.prefix ?? null, sel.start ?? null, sel.end ?? null], entry.key);
    this.#count++;
    return { done: false, value: entry };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
