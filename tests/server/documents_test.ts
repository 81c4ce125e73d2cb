/**
 * Receipts and documents of card transactions (spec §2 document panel, §3 Receipt,
 * Document, Upload form fields, §5 Receipt note and Upload, §7 the document calls, remote
 * delete): uploads checked by extension and magic bytes, limited in size, kept in KV chunks,
 * served back byte-identical to their owner only, counted on the transaction atomically.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, testApp, withApp } from "../helpers.ts";
import { assertError, assertOk, type Headers, login } from "./api.ts";
import {
  CONTENT_PATH,
  DocumentEntity,
  DocumentInfo,
  PREVIEW_PATH,
  Receipt,
  RemoteDeleteResponse,
  UPLOAD_PATH,
  UploadResponse,
} from "../../client/shared/contract/documents.ts";
import { makeExe, makePdf, makePng } from "../fixtures/files.ts";
import { buy, defineSecure, get, newCard, post, rows } from "./purchase_helpers.ts";
import { PREVIEW_MAX_BYTES, sweepBlobs } from "../../server/domain/documents.ts";
import { imageSize } from "../../server/domain/file_types.ts";
import { contentDisposition } from "../../server/routes/documents.ts";

const DAY = 86_400_000;
const MIN = 60_000;

async function setUp(api: TestApi, email = DEMO.employee) {
  const emp = await login(api, email);
  await defineSecure(api, emp.h, email === DEMO.employee ? "612345678" : "698765432");
  const card = await newCard(api, emp.h);
  const p = await buy(api, card, { amount: "42.00" });
  return { emp, card, tx: p.transactionOid };
}

interface Upload {
  record: string;
  file?: Uint8Array;
  name?: string;
  preview?: Uint8Array;
  fields?: Record<string, string>;
}

function form(u: Upload): FormData {
  const f = new FormData();
  f.append("record", u.record);
  for (const [k, v] of Object.entries(u.fields ?? {})) f.append(k, v);
  if (u.file) f.append("file", new Blob([u.file as Uint8Array<ArrayBuffer>]), u.name ?? "r.png");
  if (u.preview) f.append("preview", new Blob([u.preview as Uint8Array<ArrayBuffer>]), "p.jpg");
  return f;
}

async function upload(api: TestApi, h: Headers, u: Upload) {
  const res = await api.app.request(`/bonita${UPLOAD_PATH}`, {
    method: "POST",
    headers: h,
    body: form(u),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch { /* asserted below */ }
  return { status: res.status, json, text, res };
}

async function uploaded(api: TestApi, h: Headers, u: Upload): Promise<UploadResponse> {
  const r = await upload(api, h, u);
  assertOk(r);
  const parsed = UploadResponse.safeParse(r.json);
  assert.ok(parsed.success, r.text);
  return parsed.data;
}

const file = (api: TestApi, h: Headers, path: string, query: string, more: Headers = {}) =>
  api.app.request(`/bonita${path}?${query}`, { headers: { ...h, ...more } });

async function chunkKeys(api: TestApi): Promise<number> {
  let n = 0;
  for (const store of [api.deps.store.blobs, api.deps.store.secureBlobs]) {
    for await (const _ of api.kv.list({ prefix: store.chunkPrefix })) n++;
  }
  return n;
}

async function markReviewed(api: TestApi, userOid: string, oid: string) {
  const { transactions, kv } = api.deps.store;
  const e = await transactions.get(userOid, oid);
  assert.ok(
    (await transactions.put(kv.atomic().check(e), { ...e.value!, reviewed: true })
      .commit()).ok,
  );
}

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

Deno.test(
  "[documents] bad input: 401 without a token, 400 invalid_query / invalid_body on every call",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const none = {};
    const calls: [string, string, unknown?][] = [
      ["GET", `pwaexpensereceipts?oid=${tx}`],
      ["POST", "pwasaveReceiptNote", { expenseReceipt: { oid: "x", note: "n" } }],
      ["GET", `pwaexpensereceiptdocuments?record=${tx}`],
      ["GET", "pwacheckupload?extension=pdf"],
      ["GET", "pwacheckdocumentcontent?name=a.pdf&head="],
      ["GET", `pwacheckadddocumentcontent?record=${tx}`],
      ["GET", "pwadeletedocument?record=x"],
      ["GET", "pwadocumentcontent?record=x"],
      ["GET", "pwapreview?record=x"],
      ["POST", "pwaauploaddocument", undefined],
    ];
    for (const [method, path, body] of calls) {
      const r = await api.call(method, `/scmapi/expense/${path}`, { body, headers: none });
      assertError(r, 401, "unauthorized");
    }
    const E = "/scmapi/expense";
    const bad: [string, string, unknown, string][] = [
      ["GET", "pwaexpensereceipts", undefined, "invalid_query"],
      ["GET", "pwaexpensereceipts?oid=" + "x".repeat(65), undefined, "invalid_query"],
      ["POST", "pwasaveReceiptNote", { expenseReceipt: { oid: "x" } }, "invalid_body"],
      [
        "POST",
        "pwasaveReceiptNote",
        { expenseReceipt: { oid: "x", note: "n".repeat(201) } },
        "invalid_body",
      ],
      ["GET", "pwaexpensereceiptdocuments?archive=maybe&record=x", undefined, "invalid_query"],
      ["GET", "pwacheckupload", undefined, "invalid_query"],
      ["GET", "pwacheckdocumentcontent?name=&head=", undefined, "invalid_query"],
      ["GET", `pwacheckdocumentcontent?name=a&head=${"A".repeat(129)}`, undefined, "invalid_query"],
      ["GET", "pwacheckdocumentcontent?name=a&head=&size=-1", undefined, "invalid_query"],
      ["GET", "pwacheckadddocumentcontent?record=", undefined, "invalid_query"],
      ["GET", "pwacheckadddocumentcontent?record=x&documenttype=x", undefined, "invalid_query"],
      ["GET", "pwadeletedocument", undefined, "invalid_query"],
      ["GET", "pwadocumentcontent", undefined, "invalid_query"],
      ["GET", "pwapreview?record=x&size=big", undefined, "invalid_query"],
    ];
    for (const [method, path, body, code] of bad) {
      const r = await api.call(method, `${E}/${path}`, { body, headers: emp.h });
      assertError(r, 400, code);
    }
    // Uploads: a form without a record, a bad documenttype, no file, not a form at all.
    const png = makePng();
    assertError(await upload(api, emp.h, { record: "", file: png }) as never, 400, "invalid_body");
    assertError(
      await upload(api, emp.h, { record: tx, file: png, fields: { documenttype: "x" } }) as never,
      400,
      "invalid_body",
    );
    assertError(await upload(api, emp.h, { record: tx }) as never, 400, "no_file");
    assertError(
      await api.call("POST", `${E}/pwaauploaddocument`, { body: { record: tx }, headers: emp.h }),
      400,
      "invalid_body",
    );
    const wrong2 = await upload(api, emp.h, {
      record: tx,
      file: png,
      fields: { record2: "other" },
    });
    assertError(wrong2 as never, 400, "invalid_body");
    // The offline worker's bypass header changes nothing.
    const bypass = await upload(api, { ...emp.h, "x-bypass-sw": "1" }, { record: tx, file: png });
    assertOk(bypass as never);
  }),
);

Deno.test(
  "[documents] another user's transaction, document and receipt are 404, exactly as unknown ones",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const other = await setUp(api, DEMO.manager);
    const mine = await uploaded(api, emp.h, { record: tx, file: makePng() });
    const theirs = await uploaded(api, other.emp.h, {
      record: other.tx,
      file: makePdf(),
      name: "t.pdf",
    });
    const h = emp.h;
    for (const [record, doc] of [[other.tx, theirs.document.oid], ["nope", "nope"]]) {
      assertError(await get(api, h, `pwaexpensereceipts?oid=${record}`), 404);
      assertError(await get(api, h, `pwaexpensereceiptdocuments?record=${record}`), 404);
      assertError(await get(api, h, `pwacheckadddocumentcontent?record=${record}`), 404);
      assertError(await upload(api, h, { record, file: makePng() }) as never, 404);
      assertError(await get(api, h, `pwadeletedocument?record=${doc}`), 404);
      assertError(
        await post(api, h, "pwasaveReceiptNote", { expenseReceipt: { oid: doc, note: "x" } }),
        404,
      );
      for (const path of [CONTENT_PATH, PREVIEW_PATH]) {
        const res = await file(api, h, path, `record=${doc}`);
        assert.equal(res.status, 404);
        assert.equal((await res.json()).error, "not_found");
      }
      // A transaction oid is not a document oid, and the other way round.
      assertError(await get(api, h, `pwadocumentcontent?record=${tx}`), 404);
      assertError(await get(api, h, `pwaexpensereceipts?oid=${mine.document.oid}`), 404);
    }
    // Their document is intact.
    const still = await get(api, other.emp.h, `pwaexpensereceipts?oid=${other.tx}`);
    assert.equal((still.json.receipts as Receipt[]).length, 1);
  }),
);

Deno.test(
  "[documents] an interrupted upload leaves no document, and no chunk once the sweep has run",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    api.deps.faults = {
      beforeCommit: (what) => {
        if (what === "document") throw new Error("crash before the commit");
      },
    };
    const log = console.error;
    console.error = () => {};
    try {
      const r = await upload(api, emp.h, {
        record: tx,
        file: makePdf({ padTo: 1_000_000 }),
        name: "x.pdf",
        preview: makePng(),
      });
      assert.equal(r.status, 500);
    } finally {
      console.error = log;
      api.deps.faults = undefined;
    }
    const list = await get(api, emp.h, `pwaexpensereceiptdocuments?record=${tx}`);
    assert.deepEqual(list.json.documents, []);
    assert.equal((await rows(api, emp.h))[0].nbReceipts, 0);
    assert.ok(await chunkKeys(api) > 16, "the chunks were written before the commit");
    // Not yet: an upload in progress must not lose its chunks.
    assert.deepEqual(await sweepBlobs(api.deps), { pending: 0, doomed: 0 });
    const real = api.deps.now;
    api.deps.now = () => real() + 15 * MIN + 1;
    assert.deepEqual(await sweepBlobs(api.deps), { pending: 2, doomed: 0 });
    assert.equal(await chunkKeys(api), 0);
    // The transaction takes uploads as before.
    api.deps.now = real;
    assert.equal((await uploaded(api, emp.h, { record: tx, file: makePng() })).nbReceipts, 1);
  }),
);

Deno.test(
  "[documents] delete removes the record, every chunk and the count; receipts and documents counted apart",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const pdf = makePdf({ padTo: 700_000 });
    const a = await uploaded(api, emp.h, {
      record: tx,
      file: pdf,
      name: "a.pdf",
      preview: makePng(),
    });
    const b = await uploaded(api, emp.h, {
      record: tx,
      file: makePng(),
      fields: { documenttype: "document" },
    });
    assert.deepEqual([b.nbReceipts, b.nbDocuments], [1, 1]);
    assert.equal(b.receipt, null);
    assert.equal(b.document.documentType, "document");
    const receipts = await get(api, emp.h, `pwaexpensereceipts?oid=${tx}`);
    assert.deepEqual((receipts.json.receipts as Receipt[]).map((r) => r.oid), [a.document.oid]);
    const before = await chunkKeys(api);
    const d = await get(api, emp.h, `pwadeletedocument?record=${a.document.oid}`);
    assertOk(d);
    assert.deepEqual(d.json, {
      canDeleteLocal: true,
      remoteUrl: null,
      remoteToken: null,
      nbReceipts: 0,
      nbDocuments: 1,
    });
    assert.equal(await chunkKeys(api), before - Math.ceil(pdf.length / 60_000) - 1);
    assert.equal((await rows(api, emp.h))[0].nbReceipts, 0);
    assertError(await get(api, emp.h, `pwadocumentcontent?record=${a.document.oid}`), 404);
    assertError(await get(api, emp.h, `pwadeletedocument?record=${a.document.oid}`), 404);
    const d2 = await get(api, emp.h, `pwadeletedocument?record=${b.document.oid}`);
    assert.deepEqual([d2.json.nbReceipts, d2.json.nbDocuments], [0, 0]);
    assert.equal(await chunkKeys(api), 0);
    const keys: Deno.KvKey[] = [];
    for await (const e of api.kv.list({ prefix: ["document"] })) keys.push(e.key);
    for await (const e of api.kv.list({ prefix: ["document_ref"] })) keys.push(e.key);
    for await (const e of api.kv.list({ prefix: ["blob"] })) keys.push(e.key);
    assert.deepEqual(keys, []);
  }),
);

Deno.test(
  "[documents] advanced security: kept by the document service, deleted remotely with a token that works once",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const png = makePng(30, 30);
    const up = await uploaded(api, emp.h, {
      record: tx,
      file: png,
      fields: { documentsecurity: "true" },
    });
    const oid = up.document.oid;
    assert.equal(up.document.advancedSecurity, true);
    let n = 0;
    for await (const _ of api.kv.list({ prefix: api.deps.store.secureBlobs.chunkPrefix })) n++;
    assert.equal(n, 1, "its chunks are under the document service's prefix");
    // Its owner still reads it.
    const res = await file(api, emp.h, CONTENT_PATH, `record=${oid}`);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), png);
    // Delete: nothing local, a remote URL and a token.
    const del = async () => {
      const r = await get(api, emp.h, `pwadeletedocument?record=${oid}`);
      assertOk(r);
      assert.equal(r.json.canDeleteLocal, false);
      assert.equal(r.json.remoteUrl, `/docservice/documents/${oid}`);
      assert.deepEqual([r.json.nbReceipts, r.json.nbDocuments], [1, 0]);
      return r.json as { remoteUrl: string; remoteToken: string };
    };
    const first = await del();
    assert.equal((await rows(api, emp.h))[0].nbReceipts, 1, "nothing deleted yet");
    const remote = (url: string, token: string) =>
      api.app.request(`${url}/proxy?token=${encodeURIComponent(token)}`, { method: "DELETE" });
    // Expired: the clock past its 2 minutes.
    const real = api.deps.now;
    api.deps.now = () => real() + 2 * MIN + 1;
    const late = await remote(first.remoteUrl, first.remoteToken);
    assert.equal(late.status, 403);
    assert.deepEqual(await late.json(), {
      error: "token_expired",
      message: "This link has expired. Please try again.",
    });
    api.deps.now = real;
    // Forged, or for another document: refused.
    const second = await del();
    const forged = second.remoteToken.slice(0, -2) +
      (second.remoteToken.endsWith("AA") ? "BB" : "AA");
    assert.equal((await remote(second.remoteUrl, forged)).status, 403);
    assert.equal((await remote("/docservice/documents/other", second.remoteToken)).status, 403);
    assert.equal((await remote(second.remoteUrl, "")).status, 403);
    // Genuine: deletes record, chunks and count, once.
    const ok = await remote(second.remoteUrl, second.remoteToken);
    assert.equal(ok.status, 200);
    assert.deepEqual(
      RemoteDeleteResponse.parse(await ok.json()),
      { deleted: true, nbReceipts: 0, nbDocuments: 0 },
    );
    assert.equal(ok.headers.get("cache-control"), "no-store");
    const again = await remote(second.remoteUrl, second.remoteToken);
    assert.equal(again.status, 403);
    assert.equal((await again.json()).error, "token_expired");
    n = 0;
    for await (const _ of api.kv.list({ prefix: ["docsvc", "blob"] })) n++;
    assert.equal(n, 0);
    assert.equal((await rows(api, emp.h))[0].nbReceipts, 0);
    assertError(await get(api, emp.h, `pwadocumentcontent?record=${oid}`), 404);
  }),
);

Deno.test(
  "[documents] reviewed transactions refuse attach, delete and note; refused ones take nothing",
  withApp(async (api) => {
    const { emp, tx, card } = await setUp(api);
    const up = await uploaded(api, emp.h, { record: tx, file: makePng() });
    const note = (oid: string, text: string) =>
      post(api, emp.h, "pwasaveReceiptNote", { expenseReceipt: { oid, note: text } });
    const saved = await note(up.document.oid, "Lunch with the Lyon team");
    assertOk(saved);
    assert.equal((saved.json.expenseReceipt as Receipt).note, "Lunch with the Lyon team");
    assertOk(await note(up.document.oid, "n".repeat(200)));
    await markReviewed(api, emp.oid, tx);
    assertError(
      await upload(api, emp.h, { record: tx, file: makePng() }) as never,
      409,
      "reviewed",
      "A receipt cannot be attached to an already reviewed transaction",
    );
    assertError(
      await get(api, emp.h, `pwadeletedocument?record=${up.document.oid}`),
      409,
      "not_deletable",
    );
    assertError(await note(up.document.oid, "changed"), 409, "read_only");
    const add = await get(api, emp.h, `pwacheckadddocumentcontent?record=${tx}`);
    assert.deepEqual(add.json, {
      result: 0,
      message: "A receipt cannot be attached to an already reviewed transaction",
    });
    const list = await get(api, emp.h, `pwaexpensereceiptdocuments?record=${tx}`);
    assert.equal((list.json.documents as DocumentInfo[])[0].canBeDeleted, 0);
    assert.equal(await chunkKeys(api), 1, "the refused upload left nothing");

    const refused = await buy(api, card, { mcc: "7995" });
    assert.equal(refused.approved, false);
    assertError(
      await upload(api, emp.h, { record: refused.transactionOid, file: makePng() }) as never,
      409,
      "refused",
    );
    const r = await get(api, emp.h, `pwacheckadddocumentcontent?record=${refused.transactionOid}`);
    assert.equal(r.json.result, 0);
  }),
);

Deno.test(
  "[documents] at most 20 documents a transaction; pwacheckadddocumentcontent says so first",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const ok = await get(
      api,
      emp.h,
      `pwacheckadddocumentcontent?record=${tx}&documenttype=receipt`,
    );
    assert.deepEqual(ok.json, { result: 1, message: null });
    const png = makePng(8, 8);
    await Promise.all(
      Array.from({ length: 20 }, () => uploaded(api, emp.h, { record: tx, file: png })),
    );
    assert.equal((await rows(api, emp.h))[0].nbReceipts, 20, "concurrent uploads all counted");
    assertError(await upload(api, emp.h, { record: tx, file: png }) as never, 409, "too_many");
    const full = await get(api, emp.h, `pwacheckadddocumentcontent?record=${tx}`);
    assert.deepEqual(full.json, { result: 0, message: "A transaction holds at most 20 documents" });
  }),
);

Deno.test(
  "[documents] attaching the overdue receipt lifts the missing-receipts block at once",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const real = api.deps.now;
    api.deps.now = () => real() + 8 * DAY;
    assert.equal((await get(api, emp.h, "pwacheckcancreaterequest")).json.result, 0);
    await uploaded(api, emp.h, { record: tx, file: makePdf(), name: "hotel.pdf" });
    assert.deepEqual((await get(api, emp.h, "pwacheckcancreaterequest")).json, {
      result: 1,
      message: null,
    });
    assert.equal((await rows(api, emp.h))[0].needsAttention, false);
  }),
);

Deno.test(
  "[documents] documents follow their transaction through a flip",
  withApp(async (api) => {
    const { emp, tx, card } = await setUp(api);
    const up = await uploaded(api, emp.h, { record: tx, file: makePng() });
    const f = await post(api, emp.h, "pwaflip", {
      transactionoids: [tx],
      purpose: "Client dinner",
      oid: card.oid,
      ccoid: "cc-marketing",
      gloid: "gl-entertainment",
      projoid: "prj-brand",
    });
    assertOk(f);
    const copy = (f.json.transactions as { oid: string; nbReceipts: number }[])[0];
    assert.equal(copy.nbReceipts, 1);
    const list = await get(api, emp.h, `pwaexpensereceiptdocuments?record=${copy.oid}`);
    assert.deepEqual((list.json.documents as DocumentInfo[]).map((d) => d.oid), [up.document.oid]);
    // The moved original takes nothing more; the copy does, and its counts follow.
    assertError(await upload(api, emp.h, { record: tx, file: makePng() }) as never, 409, "refused");
    assert.equal((await uploaded(api, emp.h, { record: copy.oid, file: makePng() })).nbReceipts, 2);
    const d = await get(api, emp.h, `pwadeletedocument?record=${up.document.oid}`);
    assert.equal(d.json.nbReceipts, 1);
  }),
);

Deno.test(
  "[documents] previews are checked: JPEG or PNG, at most 1024 px and 512 KB; hostile names are made safe",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const big = await upload(api, emp.h, {
      record: tx,
      file: makePdf(),
      name: "a.pdf",
      preview: makePng(1025, 10),
    });
    assertError(big as never, 415, "bad_preview");
    const exe = await upload(api, emp.h, {
      record: tx,
      file: makePdf(),
      name: "a.pdf",
      preview: makeExe(),
    });
    assertError(exe as never, 415, "bad_preview");
    const heavy = await upload(api, emp.h, {
      record: tx,
      file: makePdf(),
      name: "a.pdf",
      // A small PNG padded past 512 KB (trailing bytes: still a PNG by its head).
      preview: new Uint8Array([...makePng(100, 100), ...new Uint8Array(600 * 1024)]),
    });
    assertError(heavy as never, 413, "bad_preview");
    assert.equal(await chunkKeys(api), 0);
    const up = await uploaded(api, emp.h, {
      record: tx,
      file: makePdf(),
      name: "Quittance n°5 \\ été.pdf",
    });
    const res = await file(api, emp.h, CONTENT_PATH, `record=${up.document.oid}`);
    await res.body?.cancel();
    assert.equal(
      res.headers.get("content-disposition"),
      `attachment; filename="Quittance n5 ete.pdf"; filename*=UTF-8''Quittance%20n%C2%B05%20%5C%20%C3%A9t%C3%A9.pdf`,
    );
    // A hostile name survives the form (browsers send '"', CR, LF as %22, %0D, %0A) and the
    // header stays one header, with no quote, backslash, semicolon or line break in the fallback.
    const hostile = 'a"b\\c;d\r\nSet-Cookie: x=1 ü.pdf';
    const h = await uploaded(api, emp.h, { record: tx, file: makePdf(), name: hostile });
    assert.equal(h.document.documentName, hostile);
    const hr = await file(api, emp.h, CONTENT_PATH, `record=${h.document.oid}`);
    await hr.body?.cancel();
    const cd = hr.headers.get("content-disposition")!;
    assert.equal(cd, contentDisposition("attachment", hostile));
    assert.equal(
      cd,
      `attachment; filename="abcdSet-Cookie: x=1 u.pdf"; filename*=UTF-8''a%22b%5Cc%3Bd%0D%0ASet-Cookie%3A%20x%3D1%20%C3%BC.pdf`,
    );
    assert.equal(hr.headers.get("set-cookie"), null);
    assert.doesNotThrow(() => new Headers({ "content-disposition": cd }));
  }),
);

Deno.test(
  "[documents] a reading sent after its receipt (Add receipt): kept with it; refused when bad, for another's receipt, a document, and once reviewed",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const read = {
      total: 21,
      currency: "EUR",
      date: "2021-10-21",
      merchant: "Contoso",
      vat: [],
      match: "differs",
    };
    const send = (h: Headers, oid: string, r: unknown) =>
      post(api, h, "pwasaveReceiptRead", { expenseReceipt: { oid, read: r } });
    const up = await uploaded(api, emp.h, { record: tx, file: makePng(80, 60) });
    assert.equal(up.receipt?.read ?? null, null);
    const saved = await send(emp.h, up.document.oid, read);
    assertOk(saved);
    assert.deepEqual((saved.json.expenseReceipt as Receipt).read, read);
    const listed = (await get(api, emp.h, `pwaexpensereceipts?oid=${tx}`)).json
      .receipts as Receipt[];
    assert.deepEqual(listed.map((r) => r.read), [read]);
    // Not what the phone reads: 400 naming it, the kept one unchanged.
    for (const bad of [{ ...read, total: -1 }, { ...read, date: "21/10/2021" }, "{}", null]) {
      const r = await send(emp.h, up.document.oid, bad);
      assertError(r, 400, "invalid_body");
      assert.match(String(r.json.message), /read/, JSON.stringify(bad));
    }
    const still = (await get(api, emp.h, `pwaexpensereceipts?oid=${tx}`)).json
      .receipts as Receipt[];
    assert.deepEqual(still.map((r) => r.read), [read]);
    // Another's receipt, an unknown one, and a document that is not a receipt: 404.
    const other = await setUp(api, DEMO.manager);
    const theirs = await uploaded(api, other.emp.h, { record: other.tx, file: makePng() });
    assertError(await send(emp.h, theirs.document.oid, read), 404);
    assertError(await send(emp.h, "nope", read), 404);
    const doc = await uploaded(api, emp.h, {
      record: tx,
      file: makePdf(),
      name: "contract.pdf",
      fields: { documenttype: "document" },
    });
    assertError(await send(emp.h, doc.document.oid, read), 404);
    // Without a bearer token: 401.
    assertError(await send({}, up.document.oid, read), 401);
    // Reviewed: read-only, as its note.
    await markReviewed(api, emp.oid, tx);
    assertError(await send(emp.h, up.document.oid, { ...read, total: 22 }), 409, "read_only");
    const after = (await get(api, emp.h, `pwaexpensereceipts?oid=${tx}`)).json
      .receipts as Receipt[];
    assert.deepEqual(after.map((r) => r.read?.total), [21]);
  }),
);

Deno.test(
  "[documents] what the phone read travels with its receipt: stored, listed; a bad one refused, nothing kept",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const read = {
      total: 42,
      currency: "EUR",
      date: "2026-11-28",
      merchant: "Bistro Lyon",
      vat: [{ rate: 20, amount: 7 }],
      match: "match",
    };
    const up = await uploaded(api, emp.h, {
      record: tx,
      file: makePng(80, 60),
      fields: { read: JSON.stringify(read) },
    });
    assert.deepEqual(up.receipt?.read, read);
    const rec = await get(api, emp.h, `pwaexpensereceipts?oid=${tx}`);
    assert.deepEqual((rec.json.receipts as Receipt[])[0].read, read);
    // A receipt sent without it: none.
    await uploaded(api, emp.h, { record: tx, file: makePng(40, 30) });
    const both = (await get(api, emp.h, `pwaexpensereceipts?oid=${tx}`)).json.receipts as Receipt[];
    assert.deepEqual(both.map((r) => r.read ?? null).filter(Boolean), [read]);
    // Not JSON, or not what the phone reads: 400, and no document or chunk left behind.
    const chunks = await chunkKeys(api);
    for (
      const bad of [
        "{",
        JSON.stringify({ ...read, total: -1 }),
        JSON.stringify({ ...read, currency: "euro" }),
        JSON.stringify({ ...read, date: "28/11/2026" }),
        JSON.stringify({ ...read, vat: [{ rate: 99, amount: 1 }] }),
        JSON.stringify({ ...read, match: "yes" }),
        JSON.stringify({ ...read, merchant: "x".repeat(101) }),
      ]
    ) {
      const r = await upload(api, emp.h, {
        record: tx,
        file: makePng(80, 60),
        fields: { read: bad },
      });
      assertError(r, 400, "invalid_body");
      assert.match(String(r.json.message), /read/, bad);
    }
    assert.equal(await chunkKeys(api), chunks, "no chunk of a refused upload is kept");
    const after = (await get(api, emp.h, `pwaexpensereceipts?oid=${tx}`)).json
      .receipts as Receipt[];
    assert.equal(after.length, 2);
  }),
);
