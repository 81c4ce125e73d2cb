/**
 * What the accounting export's tests read files with: an RFC 4180 CSV reader, a ZIP reader
 * (central directory, stored entries, ZIP64 sizes) written from the ZIP specification (APPNOTE
 * 4.3, 4.5.3), and the export call itself on the in-process app.
 */
import assert from "node:assert/strict";
import type { TestApi } from "../helpers.ts";
import type { Headers } from "./api.ts";

export const EXPORT = "/bonita/scmapi/expense/pwaexport";

/** POST pwaexport: the status, headers and the body's bytes. */
export async function exportCall(api: TestApi, h: Headers, body: unknown) {
  const res = await api.app.request(EXPORT, {
    method: "POST",
    headers: { ...h, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: utf8(bytes) };
}

/** UTF-8 text with its byte-order mark kept (TextDecoder drops it by default). */
export const utf8 = (b: Uint8Array) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(b);

/** Rows of a CSV text (quoted fields, doubled quotes, CRLF). */
export function parseCsv(text: string, sep: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [], field = "", quoted = false, i = 0;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"', i += 2);
      else if (c === '"') (quoted = false, i++);
      else (field += c, i++);
    } else if (c === '"') (quoted = true, i++);
    else if (c === sep) (row.push(field), field = "", i++);
    else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field), rows.push(row), row = [], field = "", i += 2;
    } else (field += c, i++);
  }
  if (field || row.length) row.push(field), rows.push(row);
  return rows;
}

/** A ZIP's entries: name → bytes (stored entries only: the export stores, it never deflates). */
export function readZip(zip: Uint8Array): Map<string, Uint8Array> {
  const v = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let eocd = -1;
  for (let i = zip.length - 22; i >= 0; i--) {
    if (v.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  assert.ok(eocd >= 0, "no end of central directory");
  let count = v.getUint16(eocd + 10, true);
  let at = v.getUint32(eocd + 16, true);
  // ZIP64: the locator just before points at the ZIP64 end record.
  if (at === 0xffffffff || count === 0xffff) {
    const loc = eocd - 20;
    assert.equal(v.getUint32(loc, true), 0x07064b50, "no ZIP64 locator");
    const end64 = Number(v.getBigUint64(loc + 8, true));
    count = Number(v.getBigUint64(end64 + 32, true));
    at = Number(v.getBigUint64(end64 + 48, true));
  }
  const out = new Map<string, Uint8Array>();
  for (let n = 0; n < count; n++) {
    assert.equal(v.getUint32(at, true), 0x02014b50, "central directory entry");
    const method = v.getUint16(at + 10, true);
    let size = v.getUint32(at + 20, true);
    const nameLen = v.getUint16(at + 28, true);
    const extraLen = v.getUint16(at + 30, true);
    const commentLen = v.getUint16(at + 32, true);
    let local = v.getUint32(at + 42, true);
    const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLen));
    // ZIP64 extra field (0x0001): the 64-bit sizes and offset that did not fit.
    let e = at + 46 + nameLen;
    const extraEnd = e + extraLen;
    while (e < extraEnd) {
      const id = v.getUint16(e, true), len = v.getUint16(e + 2, true);
      if (id === 1) {
        let p = e + 4;
        if (v.getUint32(at + 24, true) === 0xffffffff) p += 8;
        if (size === 0xffffffff) (size = Number(v.getBigUint64(p, true)), p += 8);
        if (local === 0xffffffff) local = Number(v.getBigUint64(p, true));
      }
      e += 4 + len;
    }
    assert.equal(method, 0, `${name} is stored`);
    assert.equal(v.getUint32(local, true), 0x04034b50, "local header");
    const start = local + 30 + v.getUint16(local + 26, true) + v.getUint16(local + 28, true);
    out.set(name, zip.slice(start, start + size));
    at = extraEnd + commentLen;
  }
  return out;
}

/** A stream's bytes. */
export async function bytesOf(s: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(s).arrayBuffer());
}
