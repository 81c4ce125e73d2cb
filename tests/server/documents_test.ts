/**
 * This file: uploads, previews, size and type limits (the same subject goes on in
 * documents_access_test.ts, documents_readings_test.ts).
 *
 * Receipts and documents of card transactions (spec §2 document panel, §3 Receipt,
 * Document, Upload form fields, §5 Receipt note and Upload, §7 the document calls, remote
 * delete): uploads checked by extension and magic bytes, limited in size, kept in KV chunks,
 * served back byte-identical to their owner only, counted on the transaction atomically.
 */
import assert from "node:assert/strict";
import { DEMO, testApp, withApp } from "../helpers.ts";
import { assertError, assertOk, login } from "./api.ts";
import {
  CONTENT_PATH,
  DocumentEntity,
  DocumentInfo,
  PREVIEW_PATH,
  Receipt,
  UPLOAD_PATH,
} from "../../client/shared/contract/documents.ts";
import { makeExe, makePdf, makePng } from "../fixtures/files.ts";
import { get, rows } from "./purchase_helpers.ts";
import { PREVIEW_MAX_BYTES } from "../../server/domain/documents.ts";
import { imageSize } from "../../server/domain/file_types.ts";
import { chunkKeys, file, setUp, upload, uploaded } from "./documents_helpers.ts";

Deno.test(
  "[documents] a PNG receipt: uploaded, counted, listed with notes, served back with safe headers",
  withApp(async (api) => {
    const { emp, tx, card } = await setUp(api);
    const png = makePng(80, 60);
    const up = await uploaded(api, emp.h, {
      record: tx,
      file: png,
      name: "Reçu café.PNG",
      fields: { documenttype: "receipt", record2: card.oid, record3: card.oid, archive: "false" },
    });
    assert.deepEqual([up.nbReceipts, up.nbDocuments], [1, 0]);
    assert.equal(up.document.mimeType, "image/png");
    assert.equal(up.document.size, png.length);
    assert.equal(up.document.canBeDeleted, 1);
    assert.equal(up.document.hasPreview, true, "an image is its own preview");
    assert.ok(up.receipt && Receipt.safeParse(up.receipt).success);
    assert.equal((await rows(api, emp.h))[0].nbReceipts, 1);

    const rec = await get(api, emp.h, `pwaexpensereceipts?oid=${tx}`);
    assertOk(rec);
    const [r] = rec.json.receipts as Receipt[];
    assert.equal(r.oid, up.document.oid);
    assert.equal(r.type, "application/octet-stream");
    assert.equal(r.url, `/bonita${CONTENT_PATH}?record=${r.oid}`);

    const list = await get(api, emp.h, `pwaexpensereceiptdocuments?record=${tx}&archive=false`);
    assertOk(list);
    assert.deepEqual(DocumentEntity.parse(list.json.entity), {
      entityUrl: `/bonita${UPLOAD_PATH}`,
      archive: false,
      entity1oid: tx,
      entity2oid: card.oid,
      entity3oid: card.oid,
    });
    const docs = list.json.documents as DocumentInfo[];
    assert.deepEqual(docs.map((d) => d.oid), [up.document.oid]);

    // The file: its type and length, attachment by default, nosniff, never compressed or cached.
    const res = await file(api, emp.h, CONTENT_PATH, `record=${r.oid}`, {
      "accept-encoding": "gzip, br",
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.equal(res.headers.get("content-length"), String(png.length));
    assert.equal(res.headers.get("content-encoding"), null);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.match(res.headers.get("cache-control")!, /no-store/);
    assert.doesNotMatch(res.headers.get("cache-control")!, /public/);
    assert.equal(
      res.headers.get("content-disposition"),
      `attachment; filename="Recu cafe.PNG"; filename*=UTF-8''Re%C3%A7u%20caf%C3%A9.PNG`,
    );
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), png);
    const inline = await file(api, emp.h, CONTENT_PATH, `record=${r.oid}&app=1`);
    assert.match(inline.headers.get("content-disposition")!, /^inline; /);
    await inline.body?.cancel();
    // No preview sent: the image itself is the preview.
    const pv = await file(api, emp.h, PREVIEW_PATH, `record=${r.oid}&size=1024`);
    assert.equal(pv.status, 200);
    assert.deepEqual(new Uint8Array(await pv.arrayBuffer()), png);
  }),
);

Deno.test(
  "[documents] a 10 MB PDF is uploaded and read back byte-identical; its device-made preview is served",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const pdf = makePdf({ padTo: 10 * 1024 * 1024 - 1000 });
    const preview = makePng(724, 1024);
    const up = await uploaded(api, emp.h, { record: tx, file: pdf, name: "invoice.pdf", preview });
    assert.equal(up.document.mimeType, "application/pdf");
    assert.equal(up.receipt!.type, "application/pdf");
    assert.equal(up.document.hasPreview, true);
    const res = await file(api, emp.h, CONTENT_PATH, `record=${up.document.oid}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/pdf");
    assert.equal(res.headers.get("content-length"), String(pdf.length));
    const back = new Uint8Array(await res.arrayBuffer());
    assert.equal(back.length, pdf.length);
    assert.ok(back.every((b, i) => b === pdf[i]), "byte-identical");
    const pv = await file(api, emp.h, PREVIEW_PATH, `record=${up.document.oid}&size=1024`);
    assert.equal(pv.headers.get("content-type"), "image/png");
    assert.deepEqual(new Uint8Array(await pv.arrayBuffer()), preview);
    // A PDF without a preview has none: the client draws its first page.
    const bare = await uploaded(api, emp.h, { record: tx, file: makePdf(), name: "b.pdf" });
    assert.equal(bare.document.hasPreview, false);
    assert.equal(bare.receipt!.previewUrl, null);
    const none = await file(api, emp.h, PREVIEW_PATH, `record=${bare.document.oid}`);
    assert.equal(none.status, 404);
    assert.equal((await none.json()).error, "no_preview");
  }),
);

Deno.test(
  "[documents] pwapreview answers a bounded image only: never the original of a large image",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const dims = async (oid: string) => {
      const res = await file(api, emp.h, PREVIEW_PATH, `record=${oid}&size=1024`);
      if (res.status !== 200) return { status: res.status, body: await res.json() };
      const bytes = new Uint8Array(await res.arrayBuffer());
      return { status: 200, size: imageSize(bytes), bytes: bytes.length };
    };
    // A heavy photo (1600 px, grown past 512 KB) without a device-made preview.
    const heavy = new Uint8Array([...makePng(1600, 1200), ...new Uint8Array(600 * 1024)]);
    assert.ok(heavy.length > PREVIEW_MAX_BYTES);
    const h = await uploaded(api, emp.h, { record: tx, file: heavy, name: "heavy.png" });
    assert.equal(h.document.hasPreview, false);
    assert.equal(h.receipt!.previewUrl, null);
    assert.deepEqual(await dims(h.document.oid), {
      status: 404,
      body: { error: "no_preview", message: "This document has no preview" },
    });
    // Light in bytes but 2000 px wide: not a preview either (its pixels are checked).
    const wide = await uploaded(api, emp.h, {
      record: tx,
      file: makePng(2000, 1500),
      name: "w.png",
    });
    assert.equal((await dims(wide.document.oid)).status, 404);
    // With its device-made preview, the preview is served (≤ 1024 px), not the original.
    const withPv = await uploaded(api, emp.h, {
      record: tx,
      file: heavy,
      name: "heavy2.png",
      preview: makePng(1024, 683),
    });
    assert.ok(withPv.receipt!.previewUrl);
    const served = await dims(withPv.document.oid);
    assert.deepEqual(served.size, { width: 1024, height: 683 });
    assert.ok(served.bytes! <= PREVIEW_MAX_BYTES);
    // A small image is its own preview.
    const small = await uploaded(api, emp.h, {
      record: tx,
      file: makePng(800, 600),
      name: "s.png",
    });
    assert.deepEqual((await dims(small.document.oid)).size, { width: 800, height: 600 });
  }),
);

Deno.test(
  "[documents] size limit: 413 on Content-Length before reading, while reading a chunked body, and per file",
  async () => {
    const api = await testApp({ UPLOAD_MAX_BYTES: "100000" });
    try {
      const { emp, tx } = await setUp(api);
      let pulled = 0;
      const endless = () =>
        new ReadableStream<Uint8Array>({
          pull(ctl) {
            pulled++;
            ctl.enqueue(new Uint8Array(64 * 1024));
          },
        });
      // Declared too large: refused before a byte is read.
      const req = new Request(`http://x/bonita${UPLOAD_PATH}`, {
        method: "POST",
        headers: {
          ...emp.h,
          "content-type": "multipart/form-data; boundary=x",
          "content-length": String(50 * 1024 * 1024),
        },
        body: endless(),
      });
      pulled = 0;
      const byLength = await api.app.fetch(req);
      assert.equal(byLength.status, 413);
      const j = await byLength.json();
      assert.equal(j.error, "too_large");
      assert.equal(j.message, "The file is too large: at most 97 kB");
      assert.ok(pulled <= 1, `read ${pulled} parts of a body refused on its length`);
      // Chunked, no length: refused once the limit is passed, not read to the end.
      pulled = 0;
      const chunked = await api.app.request(`/bonita${UPLOAD_PATH}`, {
        method: "POST",
        headers: { ...emp.h, "content-type": "multipart/form-data; boundary=x" },
        body: endless(),
      });
      assert.equal(chunked.status, 413);
      assert.equal((await chunked.json()).error, "too_large");
      assert.ok(pulled < 20, `read ${pulled} parts`);
      // A whole form under the body limit whose file is over the file limit.
      const big = makePdf({ padTo: 150_000 });
      const r = await upload(api, emp.h, { record: tx, file: big, name: "big.pdf" });
      assertError(r as never, 413, "too_large");
      // And unauthenticated callers are refused before their body is read.
      const anon = await api.app.request(`/bonita${UPLOAD_PATH}`, {
        method: "POST",
        body: endless(),
      });
      assert.equal(anon.status, 401);
    } finally {
      await api.close();
    }
  },
);

Deno.test(
  "[documents] magic bytes and extensions: a renamed executable 415, an unlisted extension 415 with the list",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const exe = await upload(api, emp.h, { record: tx, file: makeExe(), name: "receipt.pdf" });
    assertError(exe as never, 415, "bad_content", /only PDF, JPG, JPEG, PNG files/);
    const lie = await upload(api, emp.h, { record: tx, file: makePng(), name: "scan.pdf" });
    assertError(lie as never, 415, "bad_content");
    const other = await upload(api, emp.h, { record: tx, file: makeExe(), name: "setup.exe" });
    assertError(
      other as never,
      415,
      "unsupported_type",
      "This file type is not supported. Allowed: pdf, jpg, jpeg, png",
    );
    assert.deepEqual(other.json.allowed, ["pdf", "jpg", "jpeg", "png"]);
    const noExt = await upload(api, emp.h, { record: tx, file: makePng(), name: "png" });
    assertError(noExt as never, 415, "unsupported_type");
    // JPEG by its FF D8 FF signature, under either extension.
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0, 1, 1, 0]);
    const j = await uploaded(api, emp.h, { record: tx, file: jpeg, name: "photo.JPEG" });
    assert.equal(j.document.mimeType, "image/jpeg");
    // Nothing was kept of the refused ones.
    assert.equal(j.nbReceipts, 1);
    assert.equal(await chunkKeys(api), 1);

    // pwacheckdocumentcontent applies the same rules to a name and the first bytes.
    const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b.subarray(0, 64)));
    const check = (name: string, bytes: Uint8Array, size?: number) =>
      get(
        api,
        emp.h,
        `pwacheckdocumentcontent?${new URLSearchParams({
          name,
          head: b64(bytes),
          ...(size === undefined ? {} : { size: String(size) }),
        })}`,
      );
    assert.deepEqual((await check("a.pdf", makePdf())).json, {
      result: 1,
      mimeType: "application/pdf",
      message: null,
    });
    assert.equal((await check("a.png", makePng())).json.mimeType, "image/png");
    const bad = await check("a.pdf", makeExe());
    assert.equal(bad.json.result, 0);
    assert.match(bad.json.message as string, /not what its name says/);
    const unsup = await check("a.exe", makeExe());
    assert.equal(
      unsup.json.message,
      "This file type is not supported. Allowed: pdf, jpg, jpeg, png",
    );
    const large = await check("a.pdf", makePdf(), 11 * 1024 * 1024);
    assert.equal(large.json.message, "The file is too large: at most 10 MB");
    assertError(
      await get(api, emp.h, "pwacheckdocumentcontent?name=a.pdf&head=%25%25%25"),
      400,
    );
  }),
);

Deno.test(
  "[documents] pwacheckupload answers OK or the allowed list; case and a leading dot do not matter",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    for (const ext of ["pdf", "PDF", ".jpg", ".JPEG", "png"]) {
      const r = await get(api, emp.h, `pwacheckupload?extension=${encodeURIComponent(ext)}`);
      assertOk(r);
      assert.equal(r.json.extension, "OK", ext);
    }
    for (const ext of ["exe", ".docx", "", "heic"]) {
      const r = await get(api, emp.h, `pwacheckupload?extension=${encodeURIComponent(ext)}`);
      assert.deepEqual(r.json, {
        extension: "pdf, jpg, jpeg, png",
        allowed: ["pdf", "jpg", "jpeg", "png"],
      }, ext);
    }
  }),
);
