/**
 * One public connection of the guard's TCP front: the client socket, the loopback socket to
 * the inner Deno.serve (opened when the client's first bytes arrive), the two copy loops,
 * and the state the sweeper judges (phase, when it began, whether bytes moved).
 */

export type Phase = "header" | "request" | "idle";

/** Answer to a request header that did not arrive in time; then the connection closes. */
const TIMEOUT_408 = new TextEncoder().encode(
  "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
);
/** Copy buffer per direction, allocated once bytes flow; a silent socket holds 2 KB. */
const CHUNK = 16 * 1024;
const SMALL = 2 * 1024;
const FIRST = 2 * 1024;

export interface FrontHooks {
  /**
   * Connects to the inner server, maps the new socket's port to `front` and sets
   * `front.inner`; rejects (closing the socket) when `front` closed meanwhile.
   */
  connectInner(front: Front): Promise<Deno.TcpConn>;
  /** The connection is gone (both sockets closed): forget it. */
  closed(front: Front): void;
}

export class Front {
  readonly peer: Deno.NetAddr;
  inner: Deno.TcpConn | null = null;
  phase: Phase = "header";
  /** performance.now() when the phase began. */
  since: number;
  /** performance.now() of the last bytes seen by the sweeper (`moved` is set per chunk). */
  lastActive: number;
  moved = false;
  inFlight = 0;
  /** The client-bound loop is in the middle of a write (no 408 may be interleaved). */
  sending = false;
  #closed = false;
  /** The rest of the client's bytes are not wanted (`cut`): nothing more goes inward. */
  #cut = false;
  readonly settled = () => {
    if (--this.inFlight === 0) {
      this.phase = "idle";
      this.since = this.lastActive = performance.now();
    }
  };

  constructor(readonly client: Deno.TcpConn, readonly hooks: FrontHooks) {
    this.peer = client.remoteAddr;
    this.since = this.lastActive = performance.now();
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /** A complete request header reached the inner server's handler. */
  started(): void {
    this.inFlight++;
    this.phase = "request";
    this.since = performance.now();
  }

  /** Starts copying; returns at once (the loops run until either side ends). */
  run(): void {
    this.#upstream().catch(() => {
      if (!this.#cut) this.close();
    });
  }

  /**
   * The answer is written and the rest of the request is not wanted (a body the handler
   * refused unread): no more client bytes go inward, and the inner side is half-closed, so the
   * inner server ends the connection (it would otherwise wait for the whole body); its answer
   * still flows out, and the downstream loop closes both sockets at its end.
   */
  cut(): void {
    if (this.#closed || this.#cut) return;
    this.#cut = true;
    this.inner?.closeWrite().catch(() => this.close());
  }

  /** Closes both sockets; with `answer408`, first tells the client its header came too late. */
  async close(answer408 = false): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (answer408 && !this.sending) {
      // Bounded: a client that does not read cannot hold the close up.
      const wrote = this.client.write(TIMEOUT_408).catch(() => 0);
      await Promise.race([wrote, new Promise((r) => setTimeout(r, 100))]);
    }
    for (const c of [this.client, this.inner]) {
      try {
        c?.close();
      } catch { /* already closed */ }
    }
    this.hooks.closed(this);
  }

  /** Client → inner. Connects to the inner server when the first bytes come. */
  async #upstream(): Promise<void> {
    const first = new Uint8Array(FIRST);
    let n = await this.client.read(first);
    if (n === null || this.#closed) return void this.close();
    this.moved = true;
    const inner = await this.hooks.connectInner(this);
    this.#downstream(inner).catch(() => this.close());
    await writeAll(inner, first, n);
    let buf = new Uint8Array(SMALL);
    for (;;) {
      n = await this.client.read(buf);
      if (n === null || this.#cut) break;
      this.moved = true;
      // Bytes after an answer: the next request has begun and owes its header in time.
      if (this.phase === "idle") {
        this.phase = "header";
        this.since = performance.now();
      }
      await writeAll(inner, buf, n);
      buf = grown(buf, n);
    }
    // The client half-closed: pass it on; answers in flight still flow back.
    if (!this.#closed && !this.#cut) await inner.closeWrite();
  }

  /** Inner → client. The inner server closing ends the connection. */
  async #downstream(inner: Deno.TcpConn): Promise<void> {
    let buf = new Uint8Array(SMALL);
    for (;;) {
      const n = await inner.read(buf);
      if (n === null) break;
      this.moved = true;
      this.sending = true;
      await writeAll(this.client, buf, n);
      this.sending = false;
      buf = grown(buf, n);
    }
    await this.close();
  }
}

/**
 * A connection's copy buffers start small and grow to CHUNK once a read fills one: an idle or
 * long-lived connection (a change stream sends a few hundred bytes a minute) holds 2 × SMALL,
 * an upload or a large answer copies in CHUNKs from its second read on.
 */
function grown(buf: Uint8Array<ArrayBuffer>, n: number): Uint8Array<ArrayBuffer> {
  return n === buf.length && buf.length < CHUNK ? new Uint8Array(CHUNK) : buf;
}

async function writeAll(to: Deno.Conn, buf: Uint8Array, n: number): Promise<void> {
  let off = 0;
  while (off < n) off += await to.write(buf.subarray(off, n));
}
