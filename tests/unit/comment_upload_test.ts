/**
 * spec §7 comment upload, on the client: a URL the comment list names is used only when it
 * is a plain /bonita path of our origin; the comment then goes there as {oid, entityType
 * 'expense', record, id, archive, comment} with the bearer token.
 */
import assert from "node:assert/strict";
import {
  hasCommentUpload,
  noteCommentUpload,
  uploadComment,
} from "../../client/actions/comment_upload.ts";
import { credentials } from "../../client/api/http.ts";

Deno.test("[comments] a supplied upload URL is used only as a plain /bonita path", () => {
  for (
    const bad of [
      "https://evil.example/bonita/x",
      "//evil.example/bonita/x",
      "/bonita/../admin",
      "/bonita/x?to=y",
      "/admin/secret",
      "/bonita",
      null,
      undefined,
    ]
  ) {
    noteCommentUpload("req-1", bad);
    assert.equal(hasCommentUpload("req-1"), false, String(bad));
  }
  noteCommentUpload("req-1", "/bonita/scmapi/comments/upload");
  assert.equal(hasCommentUpload("req-1"), true);
  // The next list without one: back to pwaaddcomment.
  noteCommentUpload("req-1", null);
  assert.equal(hasCommentUpload("req-1"), false);
});

Deno.test("[comments] the comment is POSTed to the supplied URL with spec §7's body", async () => {
  const real = globalThis.fetch;
  const seen: { url: string; init: RequestInit }[] = [];
  globalThis.fetch = ((url: string, init: RequestInit) => {
    seen.push({ url, init });
    return Promise.resolve(Response.json({ status: "OK" }));
  }) as typeof fetch;
  credentials.bearer = "t0ken";
  try {
    noteCommentUpload("req-2", "/bonita/scmapi/comments/upload");
    const body = {
      oid: "req-2",
      entityType: "expense" as const,
      record: "req-2",
      id: "R000002",
      archive: false,
      comment: "Taxi receipt follows",
    };
    await uploadComment(body, { "idempotency-key": "k1" });
    assert.equal(seen.length, 1);
    assert.equal(seen[0].url, "/bonita/scmapi/comments/upload");
    assert.equal(seen[0].init.method, "POST");
    assert.deepEqual(JSON.parse(String(seen[0].init.body)), body);
    const h = seen[0].init.headers as Record<string, string>;
    assert.equal(h.authorization, "Bearer t0ken");
    assert.equal(h["idempotency-key"], "k1");
  } finally {
    globalThis.fetch = real;
    credentials.bearer = null;
  }
});
