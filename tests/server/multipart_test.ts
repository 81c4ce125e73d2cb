/**
 * The upload's multipart reader (server/routes/multipart.ts): parts read as the body arrives,
 * whatever the sizes of the pieces it arrives in; a body that is not a form refused; the body
 * limited in size and time.
 */
import assert from "node:assert/strict";
import {
  BodyError,
  boundaryOf,
  formParts,
  limitedBody,
  MultipartError,
  partBytes,
} from "../../server/routes/multipart.ts";

const enc = new TextEncoder();

function join(...parts: (string | Uint8Array)[]): Uint8Array {
  const bytes = parts.map((p) => typeof p === "string" ? enc.encode(p) : p);
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) (out.set(b, at), at += b.length);
  return out;
}

/** `body` as a stream of pieces of `size` bytes. */
function pieces(body: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(ctl) {
      if (at >= body.length) return ctl.close();
      ctl.enqueue(body.slice(at, at + size));
      at += size;
    },
  });
}

async function parse(boundary: string, body: ReadableStream<Uint8Array>) {
  const out: { name: string; filename?: string; bytes: Uint8Array }[] = [];
  for await (const p of formParts(boundary, body)) {
    out.push({
      name: p.name,
      filename: p.filename,
      bytes: await partBytes(p, 1 << 30, () => new Error("too large")),
    });
  }
  return out;
}

const B = "----qcBoundary7MA4YWxk";
// File bytes that look like the start of a delimiter more than once.
const file = join(
  "%PDF-1.7\r\n--",
  B.slice(0, 10),
  "\r\n-\r\n--",
  B.slice(0, -1),
  "x",
  new Uint8Array(300),
);
const body = join(
  "preamble to skip\r\n",
  `--${B}\r\nContent-Disposition: form-data; name="record"\r\n\r\ntx-1\r\n`,
  `--${B}\r\nContent-Disposition: form-data; name="note"\r\n\r\n\r\n`,
  `--${B}\r\nContent-Disposition: form-data; name="file"; filename="Re%22ç;u.pdf"\r\n`,
  `Content-Type: application/pdf\r\n\r\n`,
  file,
  `\r\n--${B}\r\n\r\nno name: ignored\r\n`,
  `--${B}\r\nContent-Disposition: form-data; name="preview"; filename=""\r\n\r\n`,
  `\r\n--${B}--\r\nepilogue`,
);

Deno.test("[multipart] the same parts whatever pieces the body arrives in", async () => {
  const expected = [
    { name: "record", filename: undefined, bytes: enc.encode("tx-1") },
    { name: "note", filename: undefined, bytes: new Uint8Array() },
    { name: "file", filename: 'Re"ç;u.pdf', bytes: file },
    { name: "preview", filename: "", bytes: new Uint8Array() },
  ];
  for (const size of [1, 2, 3, 5, 7, 16, 31, 64, 333, 4096, body.length]) {
    assert.deepEqual(await parse(B, pieces(body, size)), expected, `pieces of ${size}`);
  }
});

Deno.test("[multipart] a part's bytes come as they arrive, before the body has ended", async () => {
  let pulled = 0;
  const big = new Uint8Array(1_000_000).fill(0x61);
  const whole = join(
    `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n`,
    big,
    `\r\n--${B}--\r\n`,
  );
  const stream = new ReadableStream<Uint8Array>({
    pull(ctl) {
      const at = pulled++ * 65_536;
      if (at >= whole.length) return ctl.close();
      ctl.enqueue(whole.slice(at, at + 65_536));
    },
  }, { highWaterMark: 0 });
  for await (const p of formParts(B, stream)) {
    const first = await p.read();
    assert.ok(first && first.length > 0);
    assert.ok(pulled <= 2, `${pulled} pieces read before the first bytes of the part`);
    let n = first.length;
    for (let c = await p.read(); c; c = await p.read()) n += c.length;
    assert.equal(n, big.length);
  }
});

Deno.test("[multipart] not a form: no boundary, no end, a header without end", async () => {
  assert.equal(boundaryOf("multipart/form-data; boundary=abc"), "abc");
  assert.equal(boundaryOf('multipart/form-data; charset=utf-8; boundary="a b"'), "a b");
  assert.equal(boundaryOf("application/json"), null);
  const bad = [
    "no boundary at all",
    `--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nnever ends`,
    `--${B}junk`,
    `--${B}\r\n${"x".repeat(20_000)}`,
  ];
  for (const b of bad) {
    await assert.rejects(() => parse(B, pieces(enc.encode(b), 100)), MultipartError, b);
  }
});

Deno.test("[multipart] the body is limited in size and in time, and read no further", async () => {
  let pulled = 0;
  const endless = () =>
    new ReadableStream<Uint8Array>({
      pull(ctl) {
        pulled++;
        ctl.enqueue(new Uint8Array(1024));
      },
    }, { highWaterMark: 0 });
  await assert.rejects(
    () => parse(B, limitedBody(endless(), 10_000, 60_000)),
    (e) => e instanceof BodyError && e.reason === "too_large",
  );
  assert.ok(pulled <= 11, `${pulled} pieces read`);
  const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
  await assert.rejects(
    () => parse(B, limitedBody(stalled, 10_000, 50)),
    (e) => e instanceof BodyError && e.reason === "timeout",
  );
  // A body within its limits is read to its end (no timer left behind).
  assert.equal((await parse(B, limitedBody(pieces(body, 100), 1_000_000, 60_000))).length, 4);
});
