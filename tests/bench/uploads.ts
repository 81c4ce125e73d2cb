/**
 * Bench (uploads): upload throughput (MB/s) of a 10 MB PDF through the API (app.fetch with a
 * multipart body: bearer check, body read, form parse, magic bytes, chunked KV writes, the
 * committing atomic write) against raw KV chunk writes of the same bytes (60,000-byte chunks,
 * 12 a checked atomic write) in the same run, and the download of the same file back.
 *
 * Run alone: `deno run -A tests/bench/uploads.ts`.
 */
import { CONTENT_PATH, UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { makePdf } from "../fixtures/files.ts";
import { DEMO, testApp } from "../helpers.ts";
import { login } from "../server/api.ts";
import { buy, defineSecure, newCard } from "../server/purchase_helpers.ts";

type Line = (name: string, value: string, budget?: string) => void;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const MB = 1024 * 1024;
const RUNS = 5;

export async function benchUploads(line: Line): Promise<void> {
  const api = await testApp({ CHECK_RESPONSES: "false" });
  try {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const tx = (await buy(api, card, { amount: "42.00" })).transactionOid;
    const pdf = makePdf({ padTo: 10 * MB - 1000 });
    const mb = pdf.length / MB;

    const up: number[] = [];
    const down: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const form = new FormData();
      form.append("record", tx);
      form.append("file", new Blob([pdf as Uint8Array<ArrayBuffer>]), "bench.pdf");
      const t0 = performance.now();
      const res = await api.app.fetch(
        new Request(`http://bench/bonita${UPLOAD_PATH}`, {
          method: "POST",
          headers: emp.h,
          body: form,
        }),
      );
      const json = await res.json();
      if (res.status !== 200) throw new Error(`upload ${res.status}: ${JSON.stringify(json)}`);
      up.push(performance.now() - t0);
      const oid = json.document.oid as string;
      const t1 = performance.now();
      const got = await api.app.fetch(
        new Request(`http://bench/bonita${CONTENT_PATH}?record=${oid}`, { headers: emp.h }),
      );
      const n = (await got.arrayBuffer()).byteLength;
      if (n !== pdf.length) throw new Error(`download: ${n} bytes`);
      down.push(performance.now() - t1);
      // Stay under the 20 documents of a transaction.
      await api.app.fetch(
        new Request(`http://bench/bonita/scmapi/expense/pwadeletedocument?record=${oid}`, {
          headers: emp.h,
        }),
      );
    }

    // Raw: the same bytes as 60,000-byte chunks, 12 a checked atomic write, on the same KV.
    const raw: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const id = crypto.randomUUID();
      const t0 = performance.now();
      for (let at = 0, c = 0; at < pdf.length; at += 12 * 60_000) {
        const op = api.kv.atomic().check({ key: ["bench", id], versionstamp: null });
        for (let j = at; j < Math.min(pdf.length, at + 12 * 60_000); j += 60_000) {
          op.set(["bench_chunk", id, c++], pdf.subarray(j, j + 60_000));
        }
        await op.commit();
      }
      raw.push(performance.now() - t0);
    }

    const rate = (ms: number) => `${(mb / (ms / 1000)).toFixed(0)} MB/s`;
    const a = median(up), b = median(raw);
    line(
      "upload of a 10 MB PDF through the API, median",
      rate(a),
      `${a.toFixed(0)} ms; raw KV chunk writes ${rate(b)} (${b.toFixed(0)} ms), ` +
        `API/raw ${(b / a).toFixed(2)}`,
    );
    line("download of the same PDF (streamed chunks), median", rate(median(down)));
  } finally {
    await api.close();
  }
}

if (import.meta.main) {
  await benchUploads((name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`)
  );
}
