/**
 * multipart/form-data (RFC 7578) read as it arrives, part by part, a part's bytes as they come:
 * an upload goes to the store while it is received, so the server holds a few chunks of it
 * at a time, not the whole body (16 uploads of 10 MB held whole, some of them
 * twice, grew the process by 270 MB on KV and 855 MB on PostgreSQL). Names are decoded as
 * browsers encode them (UTF-8; '"', CR and LF as %22, %0D, %0A). Deno's Request.formData()
 * buffers the whole body, takes ~100 ms for 10 MB and cuts a filename at ';'.
 */

/** The body is not a multipart form (no boundary where one must be, a header too long). */
export class MultipartError extends Error {
  constructor(message = "The body is not a multipart form") {
    super(message);
    this.name = "MultipartError";
  }
}

/** Why a body could not be read: larger than allowed, too slow, or broken off. */
export class BodyError extends Error {
  constructor(readonly reason: "too_large" | "timeout" | "unreadable") {
    super(`request body: ${reason}`);
    this.name = "BodyError";
  }
}

/** One part of the form; its bytes must be read (or are skipped) before the next part. */
export interface FormPart {
  name: string;
  /** The file name of a file part ("" when sent empty); undefined for a text field. */
  filename?: string;
  /** The part's next bytes, null at its end. */
  read(): Promise<Uint8Array | null>;
}

/** The boundary of a multipart/form-data Content-Type, or null. */
export function boundaryOf(contentType: string): string | null {
  const m = /^multipart\/form-data\s*;.*\bboundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(
    contentType,
  );
  return m ? m[1] ?? m[2] : null;
}

/**
 * `stream`, failing with BodyError once more than `maxSize` bytes came ("too_large", the rest
 * unread) or when it is not all there within `timeoutMs` ("timeout"). Read it to its end or
 * cancel it: its timer runs until then.
 */
export function limitedBody(
  stream: ReadableStream<Uint8Array> | null,
  maxSize: number,
  timeoutMs: number,
): ReadableStream<Uint8Array> {
  if (!stream) return new ReadableStream({ start: (ctl) => ctl.close() });
  const reader = stream.getReader();
  let size = 0;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, timeoutMs);
  const fail = (ctl: ReadableStreamDefaultController, reason: BodyError["reason"]) => {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
    ctl.error(new BodyError(reason));
  };
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch {
        return fail(ctl, timedOut ? "timeout" : "unreadable");
      }
      if (timedOut) return fail(ctl, "timeout");
      if (r.done) {
        clearTimeout(timer);
        return ctl.close();
      }
      size += r.value.length;
      if (size > maxSize) return fail(ctl, "too_large");
      ctl.enqueue(r.value);
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

const enc = new TextEncoder();
const CRLF = enc.encode("\r\n");
const HEAD_END = enc.encode("\r\n\r\n");
/** A part's header block is at most this long. */
const MAX_HEADER = 16 * 1024;

/** Where `needle` starts in `hay` at or after `from`, or -1. */
export function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  for (let i = hay.indexOf(first, from); i >= 0; i = hay.indexOf(first, i + 1)) {
    if (i + needle.length > hay.length) return -1;
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * The parts of a multipart/form-data body with `boundary`, in order. Throws MultipartError when
 * the body is not one, and the stream's own error (BodyError) when it fails. Ending the loop
 * early cancels the body.
 */
export async function* formParts(
  boundary: string,
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<FormPart> {
  const reader = body.getReader();
  const delim = enc.encode(`\r\n--${boundary}`);
  const first = delim.subarray(2);
  let buf: Uint8Array = new Uint8Array(0);
  let ended = false;
  /** The body's next piece as it came, or null at its end. */
  const next = async (): Promise<Uint8Array | null> => {
    if (ended) return null;
    const r = await reader.read();
    if (!r.done) return r.value;
    ended = true;
    return null;
  };
  const more = async (): Promise<boolean> => {
    const c = await next();
    if (c) buf = concat(buf, c);
    return c !== null;
  };
  /** At least `n` bytes in buf, or false at the end of the body. */
  const need = async (n: number) => {
    while (buf.length < n) if (!(await more())) return false;
    return true;
  };
  try {
    // The preamble, up to the first boundary, is skipped (keeping what may start one).
    for (;;) {
      const at = indexOf(buf, first);
      if (at >= 0) {
        buf = buf.subarray(at + first.length);
        break;
      }
      buf = buf.subarray(Math.max(0, buf.length - first.length + 1));
      if (!(await more())) throw new MultipartError();
    }
    for (;;) {
      // After a boundary: "--" ends the form, CRLF starts a part.
      if (!(await need(2))) throw new MultipartError();
      if (buf[0] === 0x2d && buf[1] === 0x2d) break;
      if (buf[0] !== CRLF[0] || buf[1] !== CRLF[1]) throw new MultipartError();
      buf = buf.subarray(2);
      // The header block ends with CRLF CRLF (an empty one is a lone CRLF).
      if (!(await need(2))) throw new MultipartError();
      let headEnd = buf[0] === CRLF[0] && buf[1] === CRLF[1] ? 0 : -1;
      while (headEnd < 0) {
        headEnd = indexOf(buf, HEAD_END);
        if (headEnd >= 0) break;
        if (buf.length > MAX_HEADER || !(await more())) throw new MultipartError();
      }
      const head = new TextDecoder().decode(buf.subarray(0, headEnd));
      buf = buf.subarray(headEnd === 0 ? 2 : headEnd + 4);
      const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(head)?.[1] ?? "";
      const param = (key: string) => {
        const v = new RegExp(`;\\s*${key}="([^"]*)"`, "i").exec(disposition)?.[1];
        return v?.replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n");
      };
      let done = false;
      const read = async (): Promise<Uint8Array | null> => {
        for (;;) {
          if (done) return null;
          const at = indexOf(buf, delim);
          if (at >= 0) {
            const out = buf.subarray(0, at);
            buf = buf.subarray(at + delim.length);
            done = true;
            if (out.length) return out;
            return null;
          }
          // What cannot be the start of the delimiter goes out now; the rest waits for more.
          const keep = Math.min(buf.length, delim.length - 1);
          const out = buf.subarray(0, buf.length - keep);
          buf = buf.subarray(buf.length - keep);
          if (out.length) return out;
          const c = await next();
          if (!c) throw new MultipartError();
          if (buf.length === 0 || c.length < delim.length) {
            buf = concat(buf, c);
            continue;
          }
          // A delimiter across the seam starts in the few bytes kept: looked for in them and
          // the start of the new piece, so the piece itself is not copied.
          const seam = concat(buf, c.subarray(0, delim.length));
          const at2 = indexOf(seam, delim);
          if (at2 >= 0 && at2 < buf.length) {
            const before = buf.subarray(0, at2);
            buf = c.subarray(at2 + delim.length - buf.length);
            done = true;
            return before.length ? before : null;
          }
          const kept = buf;
          buf = c;
          return kept;
        }
      };
      const name = param("name");
      if (name !== undefined) yield { name, filename: param("filename"), read };
      // Whatever the consumer left of the part is skipped.
      while (await read() !== null) { /* skipped */ }
    }
    // The epilogue is read to the end (the connection stays usable) and dropped.
    while (await more()) buf = new Uint8Array(0);
  } finally {
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** The whole of a part as text, at most `max` bytes (else MultipartError). */
export async function partText(part: FormPart, max: number): Promise<string> {
  return new TextDecoder().decode(await partBytes(part, max, () => new MultipartError()));
}

/** The whole of a part, at most `max` bytes (else what `tooLarge` makes is thrown). */
export async function partBytes(
  part: FormPart,
  max: number,
  tooLarge: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (let c = await part.read(); c; c = await part.read()) {
    size += c.length;
    if (size > max) throw tooLarge();
    parts.push(c);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) (out.set(p, at), at += p.length);
  return out;
}
