/**
 * This file: bad input, other users, interrupted uploads, delete, advanced security, reviewed
 * transactions, the 20-document limit (the same subject goes on in documents_test.ts,
 * documents_readings_test.ts).
 *
 * Receipts and documents of card transactions (spec §2 document panel, §3 Receipt,
 * Document, Upload form fields, §5 Receipt note and Upload, §7 the document calls, remote
 * delete): uploads checked by extension and magic bytes, limited in size, kept in KV chunks,
 * served back byte-identical to their owner only, counted on the transaction atomically.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk } from "./api.ts";
import {
  CONTENT_PATH,
  DocumentInfo,
  PREVIEW_PATH,
  Receipt,
  RemoteDeleteResponse,
} from "../../client/shared/contract/documents.ts";
import { makePdf, makePng } from "../fixtures/files.ts";
import { buy, get, post, rows } from "./purchase_helpers.ts";
import { sweepBlobs } from "../../server/domain/documents.ts";
import { chunkKeys, file, markReviewed, setUp, upload, uploaded } from "./documents_helpers.ts";

const MIN = 60_000;

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
