/**
 * Receipts under load (issue 32 §4), on the store under test (Deno KV, or PostgreSQL with
 * QCARD_TEST_STORE=postgres): concurrent uploads all answer 200 and are all kept; an upload is
 * stored while it arrives (the server holds a few chunks of it, not the whole body: its
 * memory follows what is in flight, not what is sent); an upload broken off or too large
 * leaves nothing behind; on PostgreSQL the chunks go in without serialisable transactions
 * (blob batches never fail each other) and no write is given up. `deno task bench` prints the
 * figures of 16 concurrent 10 MB uploads over HTTP on both stores (tests/bench/upload_load.ts).
 */
import assert from "node:assert/strict";
import { CONTENT_PATH, UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { makePdf } from "../fixtures/files.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";
import { buy, defineSecure, newCard } from "./purchase_helpers.ts";

const enc = new TextEncoder();
const MB = 1024 * 1024;

interface Stats {
  tries: number;
  retries: number;
  gaveUp: number;
  blobBatches: number;
}
/** The PostgreSQL store's counters (pg_kv.ts); undefined on Deno KV. */
const statsOf = (api: TestApi) => (api.kv as unknown as { stats?: Stats }).stats;

/** An employee with a card and `n` purchases: headers and the transactions' oids. */
async function setUp(api: TestApi, n: number) {
  const { token, deviceId } = await api.activate(DEMO.employee);
  const h = { authorization: `Bearer ${token}`, "device-id": deviceId };
  await defineSecure(api, h);
  const card = await newCard(api, h);
  const records: string[] = [];
  for (let i = 0; i < n; i++) {
    records.push((await buy(api, card, { amount: "1.00" })).transactionOid);
  }
  return { h, records };
}

/** A multipart body as the app sends it: the fields, then the file. */
function form(boundary: string, record: string, file: Uint8Array) {
  const head = enc.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="record"\r\n\r\n${record}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="documenttype"\r\n\r\nreceipt\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="r.pdf"\r\n` +
      `Content-Type: application/pdf\r\n\r\n`,
  );
  const tail = enc.encode(`\r\n--${boundary}--\r\n`);
  return { head, tail, length: head.length + file.length + tail.length };
}

function upload(api: TestApi, h: Record<string, string>, body: BodyInit, boundary: string) {
  return api.app.request(`/bonita${UPLOAD_PATH}`, {
    method: "POST",
    headers: {
      ...h,
      "idempotency-key": crypto.randomUUID(),
      "content-type": `multipart/form-data; boundary=${boundary}`,
    },
    body,
  });
}

async function storeKeys(api: TestApi): Promise<number> {
  let n = 0;
  for (const blobs of [api.deps.store.blobs, api.deps.store.secureBlobs]) {
    for await (const _ of api.kv.list({ prefix: blobs.prefix })) n++;
  }
  return n;
}

Deno.test("[uploads] 16 concurrent uploads all answer 200 and are all kept; on PostgreSQL no chunk batch is a serialisable transaction and no write is given up", async () => {
  const api = await testApp({ CHECK_RESPONSES: "false" });
  try {
    const { h, records } = await setUp(api, 16);
    const pdf = makePdf({ padTo: 1 * MB });
    const before = statsOf(api) && { ...statsOf(api)! };
    const answers = await Promise.all(records.map(async (record) => {
      const f = new FormData();
      f.append("record", record);
      f.append("file", new Blob([pdf as Uint8Array<ArrayBuffer>]), "receipt.pdf");
      const res = await api.app.request(`/bonita${UPLOAD_PATH}`, {
        method: "POST",
        headers: { ...h, "idempotency-key": crypto.randomUUID() },
        body: f,
      });
      return { status: res.status, body: await res.json() };
    }));
    assert.deepEqual(answers.map((a) => a.status), records.map(() => 200), JSON.stringify(answers));
    // Each one is there, whole.
    const oid = answers[15].body.document.oid;
    const back = await api.app.request(`/bonita${CONTENT_PATH}?record=${oid}`, { headers: h });
    assert.deepEqual(new Uint8Array(await back.arrayBuffer()), pdf);
    const user = (await api.deps.store.users.byEmail(DEMO.employee))!;
    for (const record of records) {
      const t = (await api.deps.store.transactions.get(user.oid, record)).value!;
      assert.equal(t.nbReceipts, 1, record);
    }
    const after = statsOf(api);
    if (before && after) {
      const chunks = Math.ceil(pdf.length / 60_000);
      // The marker and one batch a 12 chunks, each a single compare-and-set: never retried.
      assert.equal(after.blobBatches - before.blobBatches, 16 * (1 + Math.ceil(chunks / 12)));
      assert.equal(after.gaveUp, before.gaveUp, "a write given up");
      // What is left in serialisable transactions per upload: the key's lease, the document's
      // commit and the kept answer — a few small writes, retried a few times at most.
      const tries = after.tries - before.tries;
      assert.ok(tries <= 16 * 3 * 4, `${tries} serialisable tries for 16 uploads`);
    }
  } finally {
    await api.close();
  }
});

Deno.test("[uploads] an upload is stored while it arrives: chunks are in the store before the body has ended", async () => {
  const api = await testApp({ CHECK_RESPONSES: "false" });
  try {
    const { h, records } = await setUp(api, 1);
    const pdf = makePdf({ padTo: 4 * MB });
    const boundary = "----qcStream" + crypto.randomUUID().slice(0, 8);
    const { head, tail } = form(boundary, records[0], pdf);
    const half = 2 * MB;
    let seenWhileSending = false;
    let step = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(ctl) {
        if (step === 0) ctl.enqueue(head);
        else if (step === 1) ctl.enqueue(pdf.slice(0, half));
        else if (step === 2) {
          // Half the file sent: the server must have stored some of it already, not be
          // holding the body until its end.
          const until = Date.now() + 10_000;
          while (!seenWhileSending && Date.now() < until) {
            seenWhileSending = (await storeKeys(api)) > 1;
            if (!seenWhileSending) await new Promise((ok) => setTimeout(ok, 20));
          }
          ctl.enqueue(pdf.slice(half));
        } else if (step === 3) ctl.enqueue(tail);
        else ctl.close();
        step++;
      },
    }, { highWaterMark: 0 });
    const res = await upload(api, h, body, boundary);
    const json = await res.json();
    assert.equal(res.status, 200, JSON.stringify(json));
    assert.ok(seenWhileSending, "nothing was stored before the whole body had arrived");
    const back = await api.app.request(`/bonita${CONTENT_PATH}?record=${json.document.oid}`, {
      headers: h,
    });
    assert.deepEqual(new Uint8Array(await back.arrayBuffer()), pdf);
  } finally {
    await api.close();
  }
});

Deno.test("[uploads] an upload broken off, too large, or with a field after its file leaves nothing stored", async () => {
  const api = await testApp({ CHECK_RESPONSES: "false", UPLOAD_MAX_BYTES: String(2 * MB) });
  try {
    const { h, records } = await setUp(api, 1);
    const boundary = "----qcBroken";
    const pdf = makePdf({ padTo: 3 * MB });
    const { head, tail } = form(boundary, records[0], pdf);
    assert.equal(await storeKeys(api), 0);

    // Broken off after a megabyte.
    let sent = 0;
    const broken = new ReadableStream<Uint8Array>({
      pull(ctl) {
        if (sent === 0) ctl.enqueue(head);
        else if (sent === 1) ctl.enqueue(pdf.slice(0, MB));
        else ctl.error(new Error("connection reset by the phone"));
        sent++;
      },
    }, { highWaterMark: 0 });
    const r1 = await upload(api, h, broken, boundary);
    assert.equal(r1.status, 400, await r1.text());
    assert.equal(await storeKeys(api), 0, "chunks of a broken upload left in the store");

    // Larger than UPLOAD_MAX_BYTES, sent without a length: refused once past the limit.
    const big = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(head);
        ctl.enqueue(pdf);
        ctl.enqueue(tail);
        ctl.close();
      },
    });
    const r2 = await upload(api, h, big, boundary);
    const j2 = await r2.json();
    assert.equal(r2.status, 413, JSON.stringify(j2));
    assert.equal(j2.error, "too_large");
    assert.equal(await storeKeys(api), 0, "chunks of a refused upload left in the store");

    // A field of the form after the file: refused (the file went to the store its fields named).
    const small = makePdf({ padTo: 100_000 });
    const late = enc.encode(
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="documentsecurity"\r\n\r\n1`,
    );
    const f = form(boundary, records[0], small);
    const r3 = await upload(
      api,
      h,
      new Blob([f.head, small as Uint8Array<ArrayBuffer>, late, f.tail]),
      boundary,
    );
    const j3 = await r3.json();
    assert.equal(r3.status, 400, JSON.stringify(j3));
    assert.match(j3.message, /documentsecurity: must come before the file/);
    assert.equal(await storeKeys(api), 0);
  } finally {
    await api.close();
  }
});
