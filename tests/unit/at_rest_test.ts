/**
 * The at-rest check of the browser tests (tests/e2e/at_rest.ts), under fake-indexeddb: a
 * receipt queued offline is sealed at every write (client/offline/queue.ts); what only looks
 * like a file in a ciphertext is not one (the capture test's `/%PDF|JFIF|receipt-/` on a
 * record's JSON failed once on a sealed record: 600 KB of base64url spells `JFIF` by chance in
 * about one run of 25); and a plain copy, even one replaced at once by the sealed record, a
 * file name in a key, bytes or another database are each caught.
 */
import "fake-indexeddb/auto";
import assert from "node:assert/strict";
import { closeQCDB, openQCDB, putCached, putToken, wipeQCDB } from "../../client/db/qcdb.ts";
import { addQueued } from "../../client/offline/queue.ts";
import {
  deriveDeviceKey,
  encryptJson,
  newKdfParams,
  toBase64Url,
} from "../../client/crypto/device_key.ts";
import { serializeV2 } from "../../client/crypto/data_key.ts";
import { sealNew } from "../../client/crypto/data_key_ops.ts";
import { pdfFromJpegs } from "../../client/lib/jpeg_pdf.ts";
import { idbProbe, type IdbWrite, inClear } from "../e2e/at_rest.ts";

const PIN = "135790";
const NAME = "receipt-2026-11-26-0712.pdf";
/** The capture test's first check, on each queued record's JSON. */
const OLD_CHECK = /%PDF|JFIF|receipt-/;

const writes: IdbWrite[] = [];
const dump = idbProbe((w) => writes.push(w));

/** A JPEG-like file: its JFIF header, then `size` bytes that do not compress. */
function jpeg(size: number): Uint8Array<ArrayBuffer> {
  const head = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, ...new TextEncoder().encode("JFIF\0")];
  const out = new Uint8Array(head.length + size);
  out.set(head);
  for (let i = head.length; i < out.length; i += 65536) {
    crypto.getRandomValues(out.subarray(i, Math.min(out.length, i + 65536)));
  }
  return out;
}

/** Two photographed pages as the capture makes them: one PDF. */
const pdf = (size: number) =>
  pdfFromJpegs([
    { jpeg: jpeg(size), width: 1200, height: 1600 },
    { jpeg: jpeg(size), width: 1200, height: 1400 },
  ]) as Uint8Array<ArrayBuffer>;

/** An activated device: its sealed token stored (wrapper 1 under the PIN), its data key. */
async function device(): Promise<CryptoKey> {
  await wipeQCDB();
  await closeQCDB();
  writes.length = 0;
  const kdf = newKdfParams(1000);
  const { sealed, dataKey } = await sealNew(await deriveDeviceKey(PIN, kdf), kdf, "token");
  await putToken({ token: serializeV2(sealed), pin: kdf.salt, pinlength: 6, rev: 1 });
  return dataKey;
}

/** What the capture queues offline: the upload, named, and its file with a preview. */
const upload = () => ({
  key: crypto.randomUUID(),
  kind: "receipt" as const,
  target: "tx1",
  label: NAME,
  call: { upload: { path: "/bonita/upload", fields: { record: "tx1" }, name: NAME } },
});

/** Stores the file as a plain record would be: the queue's file fields, not sealed. */
async function putPlain(key: string, file: Uint8Array, type = "application/pdf") {
  const db = await openQCDB();
  const rec = { key, file: toBase64Url(file), type, preview: null, previewType: "", savedAt: 1 };
  await db.put("lists", rec as never);
}

Deno.test("[at rest] a receipt queued offline is sealed at every write: nothing in clear", async () => {
  const key = await device();
  const w = await addQueued(key, upload(), {
    file: new Blob([pdf(20_000)], { type: "application/pdf" }),
    preview: new Blob([jpeg(5_000)], { type: "image/jpeg" }),
  });
  assert.ok(writes.some((x) => x.json.includes(`"outqf:${w.key}"`)), "the file's write was seen");
  const r = await inClear([...writes, ...await dump()], PIN);
  assert.deepEqual(r.problems, []);
  const opened = new Map(r.opened.map((o) => [o.key, o.value as Record<string, unknown>]));
  assert.equal(opened.get(`outqf:${w.key}`)?.type, "application/pdf");
  assert.match(String(opened.get(`outqf:${w.key}`)?.file), /^JVBERi0/, "it holds the PDF");
  assert.equal(opened.get(`outq:${String(w.seq).padStart(12, "0")}`)?.label, NAME);
  await closeQCDB();
});

Deno.test("[at rest] a sealed record whose ciphertext spells JFIF is not a file in clear", async () => {
  const key = await device();
  // The queue's file record, sealed as addQueued seals it: fresh IVs until its base64url
  // happens to spell what the capture test searched for (~2% of tries at this size).
  const file = { file: toBase64Url(pdf(150_000)), type: "application/pdf", preview: null };
  let rec: Record<string, unknown> | null = null;
  for (let i = 0; i < 3000 && !rec; i++) {
    const r = { key: "outqf:7f0c", ...await encryptJson(key, file), savedAt: 1, id: 9 };
    if (OLD_CHECK.test(JSON.stringify(r))) rec = r;
  }
  assert.ok(rec, "a ciphertext spelling JFIF (or receipt-) was found");
  const m = OLD_CHECK.exec(JSON.stringify(rec))![0];
  assert.match(String(rec.ct), new RegExp(m), "the match is inside the ciphertext");
  const r = await inClear(
    [...writes, { db: "QCDB", store: "lists", json: JSON.stringify(rec) }],
    PIN,
  );
  assert.deepEqual(r.problems, [], "the old check's match is no data in clear");
  assert.deepEqual(r.opened.find((o) => o.key === "outqf:7f0c")?.value, file);
  await closeQCDB();
});

Deno.test("[at rest] a plain copy is caught, even one the sealed record replaces at once", async () => {
  const key = await device();
  const bytes = pdf(20_000);
  await putPlain("outqf:1e2d", bytes);
  const plain = writes.at(-1)!;
  await putCached("lists", "outqf:1e2d", await encryptJson(key, { file: toBase64Url(bytes) }));
  const now = await dump();
  // At the end there is only the sealed record: only the writes show the plain one...
  assert.deepEqual((await inClear(now, PIN)).problems, []);
  const r = await inClear([...writes, ...now], PIN);
  assert.ok(r.problems.some((p) => /"outqf:1e2d": fields in clear: file, type/.test(p)));
  // ...which the old check, on its JSON, did not see: base64url never spells %PDF or JFIF.
  assert.doesNotMatch(plain.json, OLD_CHECK);
  await closeQCDB();
});

Deno.test("[at rest] a false seal, another key, a name in a key, bytes, another database", async () => {
  const key = await device();
  const other = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
  const clear = new TextEncoder().encode(JSON.stringify({ file: toBase64Url(pdf(2_000)) }));
  const iv = toBase64Url(crypto.getRandomValues(new Uint8Array(12)));
  const db = await openQCDB();
  // Shaped like a sealed blob, but its "ciphertext" is the clear JSON.
  await db.put("lists", { key: "outqf:a", iv, ct: toBase64Url(clear), savedAt: 1 });
  // Sealed, but not under this device's key.
  await putCached("lists", "outqf:b", await encryptJson(other, { file: "" }));
  // Sealed, under a key that names the file.
  await putCached("lists", `outqf:${NAME}`, await encryptJson(key, { file: "" }));
  // The bytes themselves.
  await db.put("lists", { key: "outqf:c", iv, ct: jpeg(100), savedAt: 1 } as never);
  const r = await inClear([
    ...writes,
    ...await dump(),
    { db: "photos", store: "files", json: JSON.stringify({ name: "x" }) },
  ], PIN);
  const has = (re: RegExp) => assert.ok(r.problems.some((p) => re.test(p)), `${re}: ${r.problems}`);
  has(/"outqf:a": its ciphertext does not open under the device's key/);
  has(/"outqf:b": its ciphertext does not open under the device's key/);
  has(/"receipt-" in clear/);
  has(/QCDB\/lists: binary data stored: .*"\$binary":"Uint8Array"/);
  has(/photos\/files: a database other than QCDB/);
  await closeQCDB();
});
