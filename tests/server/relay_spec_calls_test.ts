/**
 * Relay mode sends what the spec sends (server/relay/spec_calls.ts, docs/relay.md): in front of
 * an upstream that holds to spec §3 and §7, a rejection's note goes as a comment first (spec §4),
 * then `pwareject` without it; a comment replayed through `pwaaddcomment` goes to the comment
 * upload URL the upstream names (spec §7), with the request's id.
 */
import assert from "node:assert/strict";
import type { Comment, ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { DEMO } from "../helpers.ts";
import { login } from "./api.ts";
import { approvalComments, details, EQUIPMENT, submitted } from "./approvals_fixture.ts";
import { relayed } from "./relay_fixture.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const A = "/bonita/scmapi/approval";
const E = "/bonita/scmapi/expense";

/** What the upstream received: path and JSON body, in order. */
function recorder() {
  const calls: { path: string; body: Promise<unknown> }[] = [];
  const record = (req: Request) => {
    const path = new URL(req.url).pathname;
    const body = req.method === "POST"
      ? req.clone().text().then((t) => JSON.parse(t))
      : Promise.resolve(null);
    calls.push({ path, body });
  };
  const paths = () => calls.map((c) => c.path);
  return { calls, record, paths };
}

Deno.test({
  name:
    "[relay spec] a rejection's note goes upstream as a comment first, then pwareject as spec §3 has it",
  ...opts,
  fn: async () => {
    const r = await relayed();
    try {
      const emp = await login(r.api, DEMO.employee);
      const fin = await login(r.api, DEMO.approver);
      // EQUIPMENT needs a reject note: without the comment first, the upstream refuses (422).
      const { oid, request } = await submitted(r.api, emp.h, EQUIPMENT);
      const rec = recorder();
      let refuseComment = true;
      // A spec-strict upstream: pwareject knows {oid, archive, isDelegated} and nothing more.
      r.intercept = (req) => {
        rec.record(req);
        const path = new URL(req.url).pathname;
        if (path === `${A}/pwacomments` && refuseComment) {
          return Response.json({ error: "down", message: "Comments are down" }, { status: 503 });
        }
        return null;
      };
      const send = () =>
        fetch(`${r.edgeUrl}${A}/pwareject`, {
          method: "POST",
          headers: {
            ...fin.h,
            "content-type": "application/json",
            "idempotency-key": crypto.randomUUID(),
          },
          body: JSON.stringify({ oid, archive: false, isDelegated: false, note: "Too expensive" }),
        });
      // The comment refused: nothing is rejected without its note.
      let res = await send();
      assert.equal(res.status, 503, await res.clone().text());
      await res.body?.cancel();
      assert.deepEqual(rec.paths(), [`${A}/pwacomments`]);
      assert.equal((await details(r.api, fin.h, oid)).statusCode, "new");

      refuseComment = false;
      rec.calls.length = 0;
      res = await send();
      assert.equal(res.status, 200, await res.clone().text());
      const body = await res.json();
      assert.equal(body.approvalentity[0].statusCode, "rejected");
      assert.deepEqual(rec.paths(), [`${A}/pwacomments`, `${A}/pwareject`]);
      assert.deepEqual(await rec.calls[0].body, { oid, archive: false, comment: "Too expensive" });
      assert.deepEqual(await rec.calls[1].body, { oid, archive: false, isDelegated: false });
      const notes = await approvalComments(r.api, fin.h, oid);
      assert.deepEqual(notes.map((c) => [c.comment.fName, c.comment.text]), [[
        "Adam",
        "Too expensive",
      ]]);
      const mine = await r.api.call(
        "GET",
        `/scmapi/expense/pwaexpenseentity?record=${request.oid}`,
        {
          headers: emp.h,
        },
      );
      assert.equal((mine.json.expenseRequest as ExpenseRequest).statusCode, "rejected");

      // Without a note, pwareject is relayed as it is.
      const other = await submitted(r.api, emp.h, { ...EQUIPMENT, purpose: "Monitor" });
      rec.calls.length = 0;
      await fetch(`${r.edgeUrl}${A}/pwareject`, {
        method: "POST",
        headers: { ...fin.h, "content-type": "application/json" },
        body: JSON.stringify({ oid: other.oid, archive: false }),
      }).then((x) => x.body?.cancel());
      assert.deepEqual(rec.paths(), [`${A}/pwareject`]);
    } finally {
      await r.close();
    }
  },
});

Deno.test({
  name:
    "[relay spec] a comment replayed through pwaaddcomment goes to the upload URL the upstream names",
  ...opts,
  fn: async () => {
    const r = await relayed();
    try {
      const emp = await login(r.api, DEMO.employee);
      const created = await r.api.call("POST", "/scmapi/expense/pwaexpenserequestcreate", {
        headers: emp.h,
        body: { expenseRequest: { ...EQUIPMENT } },
      });
      const x = created.json.expenseRequest as ExpenseRequest;
      const UPLOAD = "/bonita/scmapi/comments/upload";
      const uploaded: Comment[] = [];
      const received: unknown[] = [];
      let names = true;
      const rec = recorder();
      // An upstream that takes request comments only at its URL (spec §7), and lists them.
      r.intercept = (req) => {
        rec.record(req);
        const path = new URL(req.url).pathname;
        if (path === `${E}/pwaexpensecomments` && names) {
          return Response.json({
            comments: uploaded,
            commentUploadUrl: `${r.upstreamUrl}${UPLOAD}`,
          });
        }
        if (path === `${E}/pwaaddcomment` && names) {
          return Response.json({ error: "gone", message: "Use the upload URL" }, { status: 404 });
        }
        if (path !== UPLOAD) return null;
        return new Response(
          new ReadableStream({
            async start(ctl) {
              const b = JSON.parse(await req.text());
              received.push(b);
              uploaded.push({
                oid: `c-${uploaded.length + 1}`,
                sourceEntityOid: b.oid,
                archive: false,
                comment: { author: "u-1", fName: "Erika", lName: "Mustermann", text: b.comment },
                createdate: "2026-11-29T10:00:00.000Z",
                canBeDeleted: true,
              });
              ctl.enqueue(new TextEncoder().encode(`{"status":"OK"}`));
              ctl.close();
            },
          }),
          { headers: { "content-type": "application/json" } },
        );
      };
      const replay = (comment: string) =>
        fetch(`${r.edgeUrl}${E}/pwaaddcomment`, {
          method: "POST",
          headers: {
            ...emp.h,
            "content-type": "application/json",
            "idempotency-key": crypto.randomUUID(),
          },
          body: JSON.stringify({ oid: x.oid, comment }),
        });
      const res = await replay("Written on the train");
      assert.equal(res.status, 200, await res.clone().text());
      const answered = (await res.json()).comment as Comment;
      assert.deepEqual([answered.oid, answered.comment.text], ["c-1", "Written on the train"]);
      assert.deepEqual(received, [{
        oid: x.oid,
        entityType: "expense",
        record: x.oid,
        id: x.id,
        archive: false,
        comment: "Written on the train",
      }]);
      assert.ok(!rec.paths().includes(`${E}/pwaaddcomment`), rec.paths().join(", "));

      // An upstream that names no URL gets pwaaddcomment, as it was sent.
      names = false;
      const plain = await replay("Receipt follows");
      assert.equal(plain.status, 200, await plain.clone().text());
      assert.equal(((await plain.json()).comment as Comment).comment.text, "Receipt follows");
      assert.equal(rec.paths().at(-1), `${E}/pwaaddcomment`);
      assert.equal(received.length, 1);
    } finally {
      await r.close();
    }
  },
});
