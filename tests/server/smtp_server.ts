/**
 * A real SMTP server for tests (RFC 5321 subset: EHLO/HELO, STARTTLS, MAIL, RCPT, DATA,
 * RSET, NOOP, QUIT) on 127.0.0.1, written on node:net and node:tls so that STARTTLS can
 * upgrade the same socket on the server side (Deno.startTls is client-only). QCard's
 * nodemailer speaks to it over TCP exactly as to Postfix.
 */
import net from "node:net";
import tls from "node:tls";

const FIXTURES = new URL("../fixtures/smtp/", import.meta.url);
export const TEST_CA = Deno.readTextFileSync(new URL("ca.pem", FIXTURES));
const KEY = Deno.readTextFileSync(new URL("server.key", FIXTURES));
const CERT = Deno.readTextFileSync(new URL("server.pem", FIXTURES));

export interface ReceivedMail {
  from: string;
  to: string[];
  messageId: string;
  subject: string;
  /** The decoded text body. */
  text: string;
  /** The session was encrypted (STARTTLS or implicit TLS). */
  tls: boolean;
  at: number;
}

export interface SmtpServerOptions {
  /** Listen on this port (a server "coming back" on the port QCard was configured with). */
  port?: number;
  /** Offer STARTTLS with the test certificate (signed by TEST_CA). */
  starttls?: boolean;
  /** TLS from the first byte (SMTPS, port 465 style). */
  implicitTls?: boolean;
  /** A reply to RCPT TO for this recipient instead of 250 (e.g. "550 5.1.1 no such user"). */
  rcptReply?: (to: string) => string | undefined;
}

export interface SmtpServer {
  port: number;
  mails: ReceivedMail[];
  /** Waits until `n` mails arrived (or throws after `ms`). */
  waitFor(n: number, ms?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/**
 * `server.close()`, bounded: on Deno 2.5.0 (the Deploy run of `deno task test`) node:net may
 * never call back once a client socket was destroyed, which left tests unresolved.
 */
export function closeServer(server: net.Server, ms = 2_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A port nothing listens on now (found by binding port 0 and letting it go). */
export async function freePort(): Promise<number> {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  await Promise.resolve();
  return port;
}

export async function startSmtpServer(opts: SmtpServerOptions = {}): Promise<SmtpServer> {
  const mails: ReceivedMail[] = [];
  const sockets = new Set<net.Socket>();
  const waiters: (() => void)[] = [];
  const onSocket = (raw: net.Socket) => {
    sockets.add(raw);
    raw.on("close", () => sockets.delete(raw));
    session(raw, !!opts.implicitTls, true, opts, (m) => {
      mails.push(m);
      for (const w of waiters.splice(0)) w();
    }, sockets);
  };
  const server = opts.implicitTls
    ? tls.createServer({ key: KEY, cert: CERT }, onSocket)
    : net.createServer(onSocket);
  // A given port can be briefly taken: a client dialling it while nothing listened may have
  // got that very port as its own source (a TCP self-connect) or the system lent it to
  // another socket. Such a hold ends soon; try again for a while.
  for (let attempt = 1;; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(opts.port ?? 0, "127.0.0.1", () => {
          server.off("error", reject);
          resolve();
        });
      });
      break;
    } catch (err) {
      const inUse = (err as { code?: string }).code === "EADDRINUSE";
      if (!inUse || !opts.port || attempt >= 100) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    mails,
    async waitFor(n, ms = 20_000) {
      const until = Date.now() + ms;
      while (mails.length < n) {
        if (Date.now() > until) throw new Error(`${mails.length} of ${n} mails after ${ms} ms`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, 50);
          waiters.push(() => (clearTimeout(t), r()));
        });
      }
      return mails;
    },
    async close() {
      const closed = closeServer(server);
      for (const s of sockets) s.destroy();
      await closed;
      // Let the destroyed sockets' close events run before the sanitizers look.
      await new Promise((r) => setTimeout(r, 20));
    },
  };
}

function session(
  sock: net.Socket,
  secure: boolean,
  greet: boolean,
  opts: SmtpServerOptions,
  deliver: (m: ReceivedMail) => void,
  sockets: Set<net.Socket>,
) {
  let buf = "";
  let data: string[] | null = null;
  let from = "";
  let to: string[] = [];
  const reply = (line: string) => sock.write(`${line}\r\n`);
  const onLine = (line: string) => {
    if (data) {
      if (line === ".") {
        deliver(parse(data.join("\r\n"), from, to, secure));
        data = null;
        from = "";
        to = [];
        reply("250 2.0.0 queued");
      } else data.push(line.startsWith("..") ? line.slice(1) : line);
      return;
    }
    const verb = line.slice(0, 4).toUpperCase();
    const arg = line.slice(5);
    if (verb === "EHLO") {
      const ext = ["8BITMIME", "SMTPUTF8", "SIZE 10485760"];
      if (opts.starttls && !secure) ext.unshift("STARTTLS");
      reply(
        ["localhost", ...ext].map((e, i, a) => `250${i < a.length - 1 ? "-" : " "}${e}`).join(
          "\r\n",
        ),
      );
    } else if (verb === "HELO") reply("250 localhost");
    else if (line.toUpperCase() === "STARTTLS" && opts.starttls && !secure) {
      reply("220 2.0.0 ready to start TLS");
      sock.removeListener("data", onData);
      const up = new tls.TLSSocket(sock, { isServer: true, key: KEY, cert: CERT } as never);
      sockets.add(up);
      up.on("close", () => sockets.delete(up));
      up.on("error", () => up.destroy());
      session(up, true, false, opts, deliver, sockets);
    } else if (verb === "MAIL") {
      from = /<([^>]*)>/.exec(arg)?.[1] ?? "";
      reply("250 2.1.0 ok");
    } else if (verb === "RCPT") {
      const rcpt = /<([^>]*)>/.exec(arg)?.[1] ?? "";
      const custom = opts.rcptReply?.(rcpt);
      if (custom) reply(custom);
      else {
        to.push(rcpt);
        reply("250 2.1.5 ok");
      }
    } else if (verb === "DATA") {
      if (!to.length) reply("554 5.5.1 no valid recipients");
      else {
        data = [];
        reply("354 end data with <CR><LF>.<CR><LF>");
      }
    } else if (verb === "RSET") {
      from = "";
      to = [];
      reply("250 2.0.0 ok");
    } else if (verb === "NOOP") reply("250 2.0.0 ok");
    else if (verb === "QUIT") {
      reply("221 2.0.0 bye");
      sock.end();
    } else reply("502 5.5.2 command not implemented");
  };
  const onData = (chunk: Uint8Array | string) => {
    buf += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    let i;
    while ((i = buf.indexOf("\r\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 2);
      onLine(line);
      if (!sock.listenerCount("data")) return; // upgraded to TLS: the new session reads on
    }
  };
  sock.on("data", onData);
  sock.on("error", () => sock.destroy());
  // A fresh connection gets the greeting; one upgraded by STARTTLS waits for EHLO again.
  if (greet) reply("220 localhost ESMTP test");
}

/** Headers and the decoded single-part text body of a message nodemailer built. */
function parse(raw: string, from: string, to: string[], tlsOn: boolean): ReceivedMail {
  const cut = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, cut).replace(/\r\n[ \t]+/g, " ");
  let body = raw.slice(cut + 4);
  const header = (name: string) =>
    new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
  const cte = header("Content-Transfer-Encoding").toLowerCase();
  if (cte === "quoted-printable") {
    const bytes = body.replace(/=\r\n/g, "").replace(
      /=([0-9A-F]{2})/gi,
      (_, h) => String.fromCharCode(parseInt(h, 16)),
    );
    body = new TextDecoder().decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0)));
  } else if (cte === "base64") {
    const bin = atob(body.replace(/\s+/g, ""));
    body = new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  }
  return {
    from,
    to,
    messageId: header("Message-ID"),
    subject: decodeWords(header("Subject")),
    text: body.replace(/\r\n/g, "\n"),
    tls: tlsOn,
    at: Date.now(),
  };
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= / =?UTF-8?B?…?=) in a header. */
function decodeWords(s: string): string {
  return s.replace(/=\?utf-8\?([qb])\?([^?]*)\?=\s*/gi, (_, enc: string, text: string) => {
    const bin = enc.toUpperCase() === "B"
      ? atob(text)
      : text.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (_m, h) =>
        String.fromCharCode(parseInt(h, 16)));
    return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  });
}
