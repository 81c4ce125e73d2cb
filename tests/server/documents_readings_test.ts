/**
 * This file: the overdue receipt, flips, previews checked, readings sent with or after a receipt
 * (the same subject goes on in documents_test.ts, documents_access_test.ts).
 *
 * Receipts and documents of card transactions (spec §2 document panel, §3 Receipt,
 * Document, Upload form fields, §5 Receipt note and Upload, §7 the document calls, remote
 * delete): uploads checked by extension and magic bytes, limited in size, kept in KV chunks,
 * served back byte-identical to their owner only, counted on the transaction atomically.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, type Headers } from "./api.ts";
import { CONTENT_PATH, DocumentInfo, Receipt } from "../../client/shared/contract/documents.ts";
import { makeExe, makePdf, makePng } from "../fixtures/files.ts";
import { get, post, rows } from "./purchase_helpers.ts";
import { contentDisposition } from "../../server/routes/documents.ts";
import { chunkKeys, file, markReviewed, setUp, upload, uploaded } from "./documents_helpers.ts";

const DAY = 86_400_000;

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
