/**
 * Backups and moves (`deno task export`, `deno task import-store`, server/store/copy.ts): a
 * seeded KV file — the demo organisation, requests, a card and its purchase, a receipt in
 * blob chunks, queued messages, expiring records — copied to PostgreSQL and back to a new KV
 * file, every record compared at each step (count, key, deep-equal value, expiry); a damaged
 * file and a non-empty store are refused.
 */
import assert from "node:assert/strict";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { openKv } from "../../server/store/kv.ts";
import { compareRecords, readStore } from "../../server/store/copy.ts";
import { main } from "../../server/app/store_copy_cli.ts";
import { DEMO, testApp } from "../helpers.ts";
import { makePdf } from "../fixtures/files.ts";
import { freshPgUrl } from "../pg.ts";
import { login } from "./api.ts";
import { buy, defineSecure, newCard, post } from "./purchase_helpers.ts";
import { ROOT } from "./main_process.ts";

/** Every entry through the Deno.Kv API: key and value (versionstamps are not portable). */
async function entries(path: string) {
  const kv = await openKv(path, false, { poolSize: 1 });
  try {
    const out = [];
    for await (const e of kv.list({ prefix: [] }, { batchSize: 1000 })) {
      out.push({ key: e.key, value: e.value });
    }
    return out;
  } finally {
    await (kv.close() as void | Promise<void>);
  }
}

/** Runs the CLI in this process; its exit code and what it said. */
async function cli(...args: string[]) {
  const said: string[] = [];
  const code = await main(args, (l) => said.push(l));
  return { code, said: said.join("\n") };
}

/** Compares two stores with the copy's own reader: expiries included. */
async function sameRecords(a: string, b: string) {
  const c = await compareRecords(
    (await readStore(a)).records,
    (await readStore(b)).records,
    5_000,
  );
  assert.deepEqual([c.missing, c.different, c.expiry, c.extra], [[], [], [], 0], `${a} → ${b}`);
  return c.equal;
}

Deno.test({
  name: "[store] export and import-store: a seeded KV file to PostgreSQL and back, " +
    "every record and expiry equal; damaged files and non-empty stores refused",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "qcard-copy-" });
    const pg = await freshPgUrl();
    const kvFile = `${dir}/source.kv`, back = `${dir}/back.kv`;
    try {
      // --- A store with some of everything, on a KV file.
      const api = await testApp({}, { kv: await openKv(kvFile, false) });
      try {
        const emp = await login(api, DEMO.employee);
        await defineSecure(api, emp.h);
        const card = await newCard(api, emp.h);
        const p = await buy(api, card, { amount: "42.00" });
        // A receipt of three blob chunks (60,000 bytes each).
        const pdf = makePdf({ padTo: 150_000 });
        assert.ok(pdf.length > 120_000, `${pdf.length} bytes`);
        const f = new FormData();
        f.append("record", p.transactionOid);
        f.append("file", new Blob([pdf as Uint8Array<ArrayBuffer>]), "receipt.pdf");
        const up = await api.app.request(`/bonita${UPLOAD_PATH}`, {
          method: "POST",
          headers: emp.h,
          body: f,
        });
        assert.equal(up.status, 200, await up.text());
        // An idempotent write: its kept answer expires.
        const r = await post(
          api,
          { ...emp.h, "idempotency-key": "copy-test-0001" },
          "pwaexpenserequestcreate",
          {
            expenseRequest: {
              typeOid: "type-travel",
              costCenterOid: "cc-sales",
              GLOid: "gl-travel",
              projectOid: "prj-crm",
              amount: 64,
              purpose: "Copied",
            },
          },
        );
        assert.equal(r.status, 200, r.text);
      } finally {
        await api.close();
      }
      const source = await entries(kvFile);
      const kinds = new Set(source.map((e) => String(e.key[0])));
      for (const k of ["user", "request", "approval", "idem", "msg", "blob", "transaction"]) {
        assert.ok([...kinds].some((x) => x.startsWith(k)), `no ${k} records in ${[...kinds]}`);
      }
      assert.ok(source.some((e) => e.key.includes("c") && e.value instanceof Uint8Array));
      assert.ok(source.some((e) => e.value instanceof Deno.KvU64), "U64 counters");

      // --- KV file → file → PostgreSQL.
      const exported = await cli("export", `${dir}/a.jsonl`, "--store", kvFile);
      assert.equal(exported.code, 0, exported.said);
      assert.match(
        exported.said,
        new RegExp(`Exported ${source.length} records \\(([1-9]\\d*) with an expiry\\)`),
      );
      const imported = await cli("import", `${dir}/a.jsonl`, "--store", pg.url);
      assert.equal(imported.code, 0, imported.said);
      assert.match(imported.said, new RegExp(`${source.length} equal, 0 missing, 0 different`));
      assert.doesNotMatch(imported.said, /postgres:\/\/|password/i, "no URL in what it says");
      assert.deepEqual(await entries(pg.url), source, "PostgreSQL holds every record, equal");
      assert.equal(await sameRecords(kvFile, pg.url), source.length);

      // A store that is not empty is refused (no silent merge).
      const again = await cli("import", `${dir}/a.jsonl`, "--store", pg.url);
      assert.equal(again.code, 1);
      assert.match(again.said, /is not empty/);

      // --- PostgreSQL → file → a new KV file.
      const fromPg = await cli("export", `${dir}/b.jsonl`, "--store", pg.url);
      assert.equal(fromPg.code, 0, fromPg.said);
      const home = await cli("import", `${dir}/b.jsonl`, "--store", back);
      assert.equal(home.code, 0, home.said);
      assert.deepEqual(await entries(back), source, "the round trip loses nothing");
      assert.equal(await sameRecords(kvFile, back), source.length);

      // --- A truncated file is refused before anything is written.
      const text = await Deno.readTextFile(`${dir}/b.jsonl`);
      await Deno.writeTextFile(
        `${dir}/cut.jsonl`,
        text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1),
      );
      const cut = await cli("import", `${dir}/cut.jsonl`, "--store", `${dir}/cut.kv`);
      assert.equal(cut.code, 1);
      assert.match(cut.said, /truncated/);
      assert.equal(await Deno.stat(`${dir}/cut.kv`).then(() => true, () => false), false);

      // The task itself: `deno task export` to stdout.
      const task = await new Deno.Command(Deno.execPath(), {
        args: ["task", "-q", "export", "-", "--store", back],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(task.stdout);
      assert.ok(task.success, new TextDecoder().decode(task.stderr));
      assert.equal(out.trim().split("\n").length, source.length + 2, "header, records, end");
      assert.match(out.split("\n")[0], /"format":"qcard-store"/);
    } finally {
      await pg.drop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
