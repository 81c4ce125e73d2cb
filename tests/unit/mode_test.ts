import assert from "node:assert/strict";
import {
  approvalModeOffered,
  isAppMode,
  isIOS,
  modeAfterLoad,
  type ModeFacts,
  THEME_COLOR,
} from "../../client/lib/mode.ts";
import {
  type ApprovalSubFilter,
  approvalSubFilterOf,
  isDimmed,
  toDecide,
} from "../../client/state/approvals.ts";
import type { ApprovalRow } from "../../client/shared/contract/approvals.ts";

const facts = (p: Partial<ModeFacts> = {}): ModeFacts => ({
  hasApprovals: true,
  approvalsToDecide: 0,
  requestsNeedingAttention: 0,
  canRequest: true,
  hasRequests: true,
  ...p,
});

Deno.test("[mode] approval mode is offered only when approval requests exist (spec §6)", () => {
  assert.equal(approvalModeOffered({ hasApprovals: false }), false);
  assert.equal(approvalModeOffered({ hasApprovals: true }), true);
  // Without approvals, approval mode falls back to request mode whatever else holds.
  for (const m of ["request", "approval"] as const) {
    assert.equal(modeAfterLoad(m, facts({ hasApprovals: false, approvalsToDecide: 3 })), "request");
    assert.equal(
      modeAfterLoad(m, facts({ hasApprovals: false, canRequest: false, hasRequests: false })),
      "request",
    );
  }
});

Deno.test("[mode] the automatic switch after loading (spec §2, §4)", () => {
  // Requests needing attention bring the person to request mode, even with approvals waiting.
  assert.equal(
    modeAfterLoad("approval", facts({ requestsNeedingAttention: 1, approvalsToDecide: 2 })),
    "request",
  );
  // Approvals waiting for their decision bring them to approval mode.
  assert.equal(modeAfterLoad("request", facts({ approvalsToDecide: 1 })), "approval");
  // Someone who only approves starts in approval mode even with nothing to decide.
  assert.equal(
    modeAfterLoad("request", facts({ canRequest: false, hasRequests: false })),
    "approval",
  );
  // Otherwise the mode of the last session stays.
  assert.equal(modeAfterLoad("request", facts()), "request");
  assert.equal(modeAfterLoad("approval", facts()), "approval");
  assert.equal(modeAfterLoad("approval", facts({ canRequest: false })), "approval");
});

Deno.test("[mode] theme colour per mode (spec §9): dark slate for requests, green otherwise", () => {
  assert.equal(THEME_COLOR.request, "#2f3e4e");
  assert.equal(THEME_COLOR.approval, "#1f7a4d");
});

Deno.test("[mode] app mode and iOS detection for the browser hint (spec §2)", () => {
  const mm = (matching: string[]) => (q: string) => ({ matches: matching.includes(q) });
  assert.equal(isAppMode({ matchMedia: mm([]), navigator: {} }), false);
  assert.equal(isAppMode({ matchMedia: mm(["(display-mode: standalone)"]) }), true);
  assert.equal(isAppMode({ matchMedia: mm(["(display-mode: fullscreen)"]) }), true);
  // iOS Safari's home-screen apps say so on navigator.standalone.
  assert.equal(isAppMode({ matchMedia: mm([]), navigator: { standalone: true } }), true);
  assert.equal(isAppMode({}), false);
  const iphone =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1";
  const ipadOs =
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Safari/605.1.15";
  const android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126 Mobile";
  assert.equal(isIOS(iphone), true);
  assert.equal(isIOS(ipadOs, 5), true);
  assert.equal(isIOS(ipadOs, 0), false, "a Mac without touch is not iOS");
  assert.equal(isIOS(android, 5), false);
});

const row = (p: Partial<ApprovalRow>): ApprovalRow => ({
  oid: "a",
  id: "AP000001.1",
  archive: false,
  statusCode: "new",
  issueDate: "2028-01-01T00:00:00.000Z",
  costCenter: "Sales",
  description: "Travel: x [300.00 EUR]",
  amount: 300,
  pricingCurrency: "EUR",
  purpose: "x",
  author: "Emma Laurent",
  authorOid: "u1",
  sourceEntityId: "R000001",
  sourceEntityOid: "r1",
  typeOid: "type-travel",
  type: "Travel",
  costCenterOid: "cc-sales",
  GLOid: null,
  GLCode: "",
  projectOid: null,
  projectCode: "",
  canApprove: false,
  canReject: false,
  canReview: false,
  isDelegated: false,
  ...p,
});

Deno.test("[mode] approval rows: dimmed when new and nothing allowed; sub-filters (spec §2)", () => {
  assert.equal(isDimmed(row({})), true);
  assert.equal(isDimmed(row({ canReview: true })), false);
  assert.equal(isDimmed(row({ canApprove: true, canReject: true })), false);
  // Only new rows are dimmed: decided ones are simply history.
  assert.equal(isDimmed(row({ statusCode: "approved" })), false);
  assert.equal(toDecide(row({ canApprove: true })), true);
  assert.equal(toDecide(row({ canReview: true })), false);
  assert.equal(toDecide(row({ statusCode: "rejected", canReject: true })), false);
  const subs: [ApprovalRow["statusCode"], ApprovalSubFilter][] = [
    ["new", "pending"],
    ["approved", "approved"],
    ["rejected", "rejected"],
    ["cancelled", "cancelled"],
  ];
  for (const [s, sf] of subs) assert.equal(approvalSubFilterOf(s), sf);
});
