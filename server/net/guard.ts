/**
 * Connection guard (docs/security.md; a finding of the adversarial test: "no header or body
 * timeouts: 300 idle sockets stay open"). Deno.serve 2.9.5 keeps a silent connection, a half-sent
 * header and an idle keep-alive connection open forever, has no option to change that, and cannot
 * close one connection. Serving each accepted connection with Deno's internal per-connection server
 * does not work either: once a handler waits on a request body, that body holds the socket open
 * after the server is told to close it, for as long as the client stays silent.
 *
 * So the guard is a TCP front in this process. It owns the public sockets and copies bytes to
 * an inner Deno.serve on 127.0.0.1 (one loopback connection per public one, opened on the
 * client's first bytes); the inner handler maps its peer's port back to the public connection,
 * so the app sees the real client address and the front learns when a request starts and when
 * its answer is sent. One sweeper timer closes a connection whose deadline ran out:
 *
 * - header: bytes of a request header (or nothing) for `headerTimeoutMs` without the complete
 *   header reaching the handler (from accept, or from the first bytes after an answer on a
 *   kept-alive connection): answered 408, then closed;
 * - request: `requestTimeoutMs` from the header to the answer sent, or no byte either way for
 *   `idleTimeoutMs` meanwhile (a stalled or trickled body, a client that stops reading): closed;
 * - idle: no request in flight and no byte either way for `idleTimeoutMs`: closed.
 *
 * Optional caps on open connections, in all and per peer address (trusted proxies exempt),
 * close the connections over them as soon as they are accepted. A handler that refuses a body
 * unread (a bearer call without a bearer) asks `closeAfterAnswer`: once its answer is written
 * the front stops passing the client's bytes and half-closes inward, so the connection ends
 * instead of taking the rest of the body. HTTP upgrades (WebSocket) are not supported.
 */
import { Front } from "./front.ts";

export interface GuardOptions {
  port: number;
  /** Default "0.0.0.0", as Deno.serve. */
  hostname?: string;
  /** Time for a request header to be complete. Default 10 s. */
  headerTimeoutMs?: number;
  /**
   * Time without a byte either way: between requests, and within one (a stalled body; note it
   * also bounds a handler that thinks silently for longer). Default 30 s.
   */
  idleTimeoutMs?: number;
  /** Time from a complete header until its answer is fully sent. Default 5 min. */
  requestTimeoutMs?: number;
  /** Open connections at most; the ones over are closed when accepted. Default unlimited. */
  maxConnections?: number;
  /** Open connections at most from one address (IPv4 or exact IPv6). Default unlimited. */
  maxConnectionsPerPeer?: number;
  /** Addresses maxConnectionsPerPeer does not apply to (trusted proxies: many clients each). */
  unlimitedPeers?: string[];
  onListen?: (addr: Deno.NetAddr) => void;
  /** Answer for a handler that threw. Default: log it, 500 "Internal Server Error". */
  onError?: (error: unknown) => Response | Promise<Response>;
  /** Aborting it shuts the server down as `shutdown()` does. */
  signal?: AbortSignal;
}

/** What the handler learns: the public client's address; `completed` settles once sent. */
export interface GuardInfo {
  remoteAddr: Deno.NetAddr;
  completed: Promise<void>;
  /**
   * Ends the connection once this answer is sent, without taking the rest of the request's
   * body (Deno.serve would wait for all of it). For answers to a body the handler refused
   * unread. Where the platform serves (no guard), it does nothing.
   */
  closeAfterAnswer(): void;
}

export type GuardHandler = (req: Request, info: GuardInfo) => Response | Promise<Response>;

export interface GuardStats {
  open: number;
  accepted: number;
  /** Closed on accept by maxConnections / maxConnectionsPerPeer. */
  refused: number;
  /** Closed by the sweeper, by the deadline that ran out. */
  timedOut: { header: number; request: number; idle: number };
}

export interface GuardedServer extends AsyncDisposable {
  addr: Deno.NetAddr;
  /** The inner Deno.serve (loopback); it answers 421 to any connection not from the front. */
  innerAddr: Deno.NetAddr | null;
  /** False where the platform serves (Deno Deploy, DENO_SERVE_ADDRESS): plain Deno.serve. */
  guarded: boolean;
  /** Settles when the listener is closed and every connection is gone. */
  finished: Promise<void>;
  /** Stops accepting, closes idle connections, lets answers in flight finish (deadlines hold). */
  shutdown(): Promise<void>;
  stats(): GuardStats;
}

const defaultOnError = (error: unknown) => {
  console.error(error);
  return new Response("Internal Server Error", { status: 500 });
};

/**
 * Deno Deploy and `DENO_SERVE_ADDRESS` (`deno serve`, hosting platforms) choose the address
 * and front the connections themselves; the override also takes the first Deno.serve of the
 * process, which would be the inner one. Asked without prompting.
 */
function platformServes(): boolean {
  return ["DENO_SERVE_ADDRESS", "DENO_DEPLOYMENT_ID"].some((variable) =>
    Deno.permissions.querySync({ name: "env", variable }).state === "granted" &&
    Boolean(Deno.env.get(variable))
  );
}

/** Where the platform serves: Deno.serve as it is, with the same shape. */
function plain(opts: GuardOptions, handler: GuardHandler): GuardedServer {
  const s = Deno.serve({
    port: opts.port,
    hostname: opts.hostname,
    signal: opts.signal,
    onError: opts.onError ?? defaultOnError,
    onListen: opts.onListen ?? (() => {}),
  }, (req, info) =>
    handler(req, {
      remoteAddr: info.remoteAddr,
      completed: info.completed,
      closeAfterAnswer: () => {},
    }));
  const shutdown = () => s.shutdown();
  const none = { header: 0, request: 0, idle: 0 };
  return {
    addr: s.addr,
    innerAddr: null,
    guarded: false,
    finished: s.finished,
    shutdown,
    stats: () => ({ open: 0, accepted: 0, refused: 0, timedOut: { ...none } }),
    [Symbol.asyncDispose]: shutdown,
  };
}

/** Deno.serve behind a TCP front with header, request and idle deadlines (module doc). */
export function serveGuarded(opts: GuardOptions, handler: GuardHandler): GuardedServer {
  if (platformServes()) return plain(opts, handler);
  const headerMs = opts.headerTimeoutMs ?? 10_000;
  const idleMs = opts.idleTimeoutMs ?? 30_000;
  const requestMs = opts.requestTimeoutMs ?? 300_000;
  const maxAll = opts.maxConnections ?? Infinity;
  const maxPeer = opts.maxConnectionsPerPeer ?? Infinity;
  const unlimited = new Set(opts.unlimitedPeers ?? []);
  const conns = new Set<Front>();
  const perPeer = new Map<string, number>();
  /** Inner connection's client port → public connection (see `connectInner`). */
  const byPort = new Map<number, Front>();
  const stats = { accepted: 0, refused: 0, timedOut: { header: 0, request: 0, idle: 0 } };
  let closing = false;

  const inner = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    onError: opts.onError ?? defaultOnError,
  }, (req, info) => {
    const front = byPort.get(info.remoteAddr.port);
    // Only the front's own sockets are served: anyone else on this host who finds the port
    // would otherwise pass for a loopback client.
    if (front === undefined || front.inner?.localAddr.hostname !== info.remoteAddr.hostname) {
      return new Response("Misdirected Request", { status: 421 });
    }
    front.started();
    info.completed.then(front.settled, front.settled);
    const closeAfterAnswer = () => void info.completed.then(() => front.cut(), () => {});
    return handler(req, { remoteAddr: front.peer, completed: info.completed, closeAfterAnswer });
  });
  const innerAddr = inner.addr;

  const hooks = {
    async connectInner(front: Front) {
      const c = await Deno.connect({ hostname: innerAddr.hostname, port: innerAddr.port });
      if (front.isClosed) {
        c.close();
        throw new Deno.errors.Interrupted("closed while connecting inward");
      }
      c.setNoDelay(true);
      byPort.set(c.localAddr.port, front);
      front.inner = c;
      return c;
    },
    closed(front: Front) {
      conns.delete(front);
      const port = front.inner?.localAddr.port;
      if (port !== undefined && byPort.get(port) === front) byPort.delete(port);
      const key = front.peer.hostname;
      const n = (perPeer.get(key) ?? 1) - 1;
      if (n === 0) perPeer.delete(key);
      else perPeer.set(key, n);
      settle();
    },
  };

  // Deadlines are checked at a quarter of the shortest timeout: acted on at most 25 % late.
  const tickMs = Math.max(10, Math.min(1000, Math.min(headerMs, idleMs, requestMs) / 4));
  let sweeper: ReturnType<typeof setInterval> | undefined;
  const sweep = () => {
    const now = performance.now();
    for (const f of conns) {
      if (f.isClosed) continue; // answering 408 before it goes
      if (f.moved) {
        f.moved = false;
        f.lastActive = now;
      }
      const late = f.phase === "header"
        ? now - f.since >= headerMs
        : now - f.lastActive >= idleMs || (f.phase === "request" && now - f.since >= requestMs);
      if (late) {
        stats.timedOut[f.phase]++;
        f.close(f.phase === "header");
      }
    }
  };

  const listener = Deno.listen({ hostname: opts.hostname ?? "0.0.0.0", port: opts.port });
  const addr = listener.addr;
  const admit = (client: Deno.TcpConn) => {
    stats.accepted++;
    const key = client.remoteAddr.hostname;
    const fromPeer = perPeer.get(key) ?? 0;
    const peerCap = unlimited.has(key.replace(/^::ffff:/, "")) ? Infinity : maxPeer;
    if (closing || conns.size >= maxAll || fromPeer >= peerCap) {
      if (!closing) stats.refused++;
      client.close();
      return;
    }
    client.setNoDelay(true);
    const front = new Front(client, hooks);
    conns.add(front);
    perPeer.set(key, fromPeer + 1);
    sweeper ??= setInterval(sweep, tickMs);
    front.run();
  };

  let loopEnded = false;
  const acceptLoop = async () => {
    let backoff = 5;
    while (!closing) {
      let conn: Deno.TcpConn;
      try {
        conn = await listener.accept();
      } catch (e) {
        if (closing || e instanceof Deno.errors.BadResource) break;
        // Out of file descriptors and the like: wait, as Go's net/http does, and go on.
        console.error("serveGuarded: accept failed", e);
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 1000);
        continue;
      }
      backoff = 5;
      admit(conn);
    }
    loopEnded = true;
    settle();
  };

  const done = Promise.withResolvers<void>();
  let innerDown: Promise<void> | undefined;
  function settle() {
    if (conns.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
    if (loopEnded && conns.size === 0) {
      innerDown ??= inner.shutdown().then(() => inner.finished).then(done.resolve, done.reject);
    }
  }

  const shutdown = () => {
    if (!closing) {
      closing = true;
      opts.signal?.removeEventListener("abort", shutdown);
      try {
        listener.close();
      } catch { /* already closed */ }
      // Not yet connected inward: nothing in flight. The others close when the inner server,
      // shutting down gracefully, closes their inner side (at once if idle, else after the answer).
      for (const f of conns) if (f.inner === null) f.close();
      inner.shutdown().catch(() => {});
    }
    return done.promise;
  };
  if (opts.signal?.aborted) shutdown();
  else opts.signal?.addEventListener("abort", shutdown, { once: true });

  acceptLoop();
  opts.onListen?.(addr);
  return {
    addr,
    innerAddr,
    guarded: true,
    finished: done.promise,
    shutdown,
    stats: () => ({ open: conns.size, ...stats, timedOut: { ...stats.timedOut } }),
    [Symbol.asyncDispose]: shutdown,
  };
}
