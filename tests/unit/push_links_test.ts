import assert from "node:assert/strict";
import {
  isDecisionLink,
  parsePushLink,
  PUSH_KINDS,
  pushLink,
  pushTag,
} from "../../client/shared/push_links.ts";

const OID = "0b6f3c1e-8d2a-4c55-9a1b-2f7e6d5c4b3a";

Deno.test("[push_links] pushLink makes /?open=<kind>:<oid>, the tag is <kind>:<oid>", () => {
  assert.equal(pushLink("request", OID), `/?open=request:${OID}`);
  assert.equal(pushLink("approval", OID), `/?open=approval:${OID}`);
  assert.equal(pushLink("transaction", OID), `/?open=transaction:${OID}`);
  assert.equal(pushTag("approval", OID), `approval:${OID}`);
  assert.throws(() => pushLink("request", "a/b"), /not a record oid/);
  assert.throws(() => pushLink("request", ""), /not a record oid/);
});

Deno.test("[push_links] parsePushLink reads what pushLink makes, relative, absolute or a search", () => {
  for (const kind of PUSH_KINDS) {
    assert.deepEqual(parsePushLink(pushLink(kind, OID)), { kind, oid: OID });
    assert.deepEqual(parsePushLink(`https://qcard.eu${pushLink(kind, OID)}`), { kind, oid: OID });
  }
  assert.deepEqual(parsePushLink(`?open=request:R-1.2_x`), { kind: "request", oid: "R-1.2_x" });
  assert.deepEqual(parsePushLink(`/?x=1&open=approval%3A${OID}`), { kind: "approval", oid: OID });
});

Deno.test("[push_links] parsePushLink refuses anything else", () => {
  for (
    const url of [
      "/",
      "",
      "/?open=",
      "/?open=card:abc",
      "/?open=request",
      "/?open=request:",
      "/?open=request:a/b",
      `/?open=request:${"x".repeat(129)}`,
      "/?open=REQUEST:abc",
      "/?other=request:abc",
      "http://[bad",
    ]
  ) {
    assert.equal(parsePushLink(url), null, url);
  }
});

Deno.test("[push_links] a purchase's link asks for the receipt: transaction:<oid>:receipt, nothing else", () => {
  const url = pushLink("transaction", OID, "receipt");
  assert.equal(url, `/?open=transaction:${OID}:receipt`);
  assert.deepEqual(parsePushLink(url), { kind: "transaction", oid: OID, action: "receipt" });
  assert.deepEqual(parsePushLink(`https://qcard.eu${url}`), {
    kind: "transaction",
    oid: OID,
    action: "receipt",
  });
  for (
    const bad of [
      `/?open=transaction:${OID}:delete`,
      `/?open=request:${OID}:receipt`,
      `/?open=transaction:${OID}:receipt:receipt`,
      `/?open=transaction:${OID}:`,
    ]
  ) assert.equal(parsePushLink(bad), null, bad);
});

Deno.test("[push_links] an approval's buttons pre-select a decision: approval:<oid>:approve|reject, nothing else", () => {
  for (const action of ["approve", "reject"] as const) {
    const url = pushLink("approval", OID, action);
    assert.equal(url, `/?open=approval:${OID}:${action}`);
    assert.deepEqual(parsePushLink(url), { kind: "approval", oid: OID, action });
    assert.equal(isDecisionLink(`https://qcard.eu${url}`), true);
  }
  assert.equal(isDecisionLink(pushLink("approval", OID)), false, "the body opens the approval");
  assert.equal(isDecisionLink(pushLink("transaction", OID, "receipt")), false);
  for (
    const bad of [
      `/?open=transaction:${OID}:approve`,
      `/?open=request:${OID}:reject`,
      `/?open=approval:${OID}:receipt`,
      `/?open=approval:${OID}:decide`,
    ]
  ) {
    assert.equal(parsePushLink(bad), null, bad);
    assert.equal(isDecisionLink(bad), false, bad);
  }
});
