import assert from "node:assert/strict";
import { approvalRows, nextToDecide } from "../../client/state/approvals.ts";
import type { ApprovalRow } from "../../client/shared/contract/approvals.ts";

// "Next" after a decision (spec §2 approval detail): the approval waiting for this person after
// the one decided, in the list's order (newest first), wrapping round to the top.

const row = (oid: string, p: Partial<ApprovalRow> = {}): ApprovalRow => ({
  oid,
  id: `AP-${oid}`,
  archive: false,
  statusCode: "new",
  issueDate: "2028-01-01T00:00:00.000Z",
  costCenter: "Sales",
  description: "Travel: x [300.00 EUR]",
  amount: 300,
  pricingCurrency: "EUR",
  purpose: oid,
  author: "Emma Laurent",
  authorOid: "u1",
  sourceEntityId: "R000001",
  sourceEntityOid: `r-${oid}`,
  typeOid: "type-travel",
  type: "Travel",
  costCenterOid: "cc-sales",
  GLOid: null,
  GLCode: "",
  projectOid: null,
  projectCode: "",
  canApprove: true,
  canReject: true,
  canReview: false,
  isDelegated: false,
  ...p,
});
const done = { canApprove: false, canReject: false, canReview: true, myVote: "approved" as const };

Deno.test("[approvals] Next is the following approval waiting for me, wrapping round; none when none waits", () => {
  approvalRows.value = [
    row("a"),
    row("b", done),
    row("c", { statusCode: "approved", canApprove: false, canReject: false }),
    row("d"),
    row("e", { canApprove: false, canReject: false, canReview: true }),
  ];
  assert.equal(nextToDecide("a")?.oid, "d", "skips what I voted on, what is decided");
  assert.equal(nextToDecide("d")?.oid, "a", "wraps round to the top");
  assert.equal(nextToDecide("b")?.oid, "d");
  // An approval no longer in the list: the first one waiting.
  assert.equal(nextToDecide("gone")?.oid, "a");
  approvalRows.value = [row("a", done), row("b", { statusCode: "cancelled" })];
  assert.equal(nextToDecide("a"), null);
  approvalRows.value = [];
  assert.equal(nextToDecide("a"), null);
});
