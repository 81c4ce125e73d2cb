import { type ApprovalRequest, approvals as api } from "../shared/contract/approvals.ts";
import { requests as requestsApi } from "../shared/contract/requests.ts";
import { ApiError, call } from "../api/http.ts";
import { formatLocale } from "../i18n/display.ts";
import { t, type TranslationKey } from "../i18n/index.ts";
import { type Mode, modeAfterLoad, THEME_COLOR } from "../lib/mode.ts";
import { checkEdit } from "../shared/request_rules.ts";
import { requestWords } from "../lib/words.ts";
import {
  approvalDetail,
  approvalFilters,
  approvalRows,
  approvalsLoaded,
  lastDecision,
  mode,
  teams,
  teamsFailed,
  toDecideCount,
} from "../state/approvals.ts";
import { editDraft, formError, NO_FILTERS, requestRows } from "../state/requests.ts";
import { attentionCount, profile } from "../state/session.ts";
import {
  askConfirm,
  closeAllSheets,
  closeSheet,
  openSheet,
  progress,
  pushBanner,
  sheets,
  showNotice,
} from "../state/ui.ts";
import { busy } from "./busy.ts";
import { cacheFirst, writeCache } from "./cache.ts";
import { markEcho } from "./changes.ts";
import { lookup } from "./lookups.ts";
import { messageOf } from "./messages.ts";
import { editBody, openEdit } from "./edit_form.ts";
import type { ListModel } from "./lists.ts";

// Approval mode (spec §2, §4, §6): the Approvals list and detail, decisions, the reject-note
// flow and the approver's edit. Same pattern as every screen: api + QCDB → signal models.

const MODE_KEY = "qc_mode";

/** spec §7 pwalistrequests, cache first (QCDB 'approvals' store, encrypted). */
export async function refreshApprovals(opts: { networkFirst?: boolean } = {}): Promise<void> {
  try {
    await cacheFirst({
      store: "approvals",
      key: "pwalistrequests",
      schema: api.list.response,
      networkFirst: opts.networkFirst,
      fetch: () => call(api.list),
      show: (d) => {
        approvalRows.value = d.approvallist;
        approvalsLoaded.value = true;
      },
    });
  } catch (err) {
    // A 401 is handled by the lists' refresh, which runs beside this one (device wiped).
    if (!(err instanceof ApiError && err.status === 401)) pushBanner(messageOf(err));
  }
  if (mode.value === "approval" && approvalsLoaded.value && !approvalRows.value.length) {
    setMode("request");
  }
}

// ---- Mode (spec §2 main menu mode switch, §4 automatic switch, §9 theme colour) ----

/** Shows a mode: its tabs, its theme colour (header and browser chrome). */
export function setMode(m: Mode, remember = true): void {
  mode.value = m;
  if (remember) {
    try {
      localStorage.setItem(MODE_KEY, m);
    } catch { /* private mode: not remembered */ }
  }
  if (typeof document === "undefined") return;
  document.documentElement.dataset.mode = m;
  document.querySelector('meta[name="theme-color"]')?.setAttribute("content", THEME_COLOR[m]);
}

/** The mode of the last session, shown until the first load decides (spec §4). */
export function restoreMode(): void {
  let m: Mode = "request";
  try {
    if (localStorage.getItem(MODE_KEY) === "approval") m = "approval";
  } catch { /* ignore */ }
  setMode(m, false);
}

/** spec §2/§4: once both lists are loaded after unlock, the automatic switch applies. */
export function applyAutoMode(): void {
  const next = modeAfterLoad(mode.value, {
    hasApprovals: approvalRows.value.length > 0,
    approvalsToDecide: toDecideCount.value,
    requestsNeedingAttention: attentionCount.value,
    canRequest: profile.value?.canRequest ?? true,
    hasRequests: requestRows.value.length > 0,
  });
  if (next !== mode.value) setMode(next, false);
}

/** Forgets this session's approval data (logout, wipe). */
export function resetApprovals(): void {
  approvalRows.value = [];
  approvalsLoaded.value = false;
  approvalDetail.value = null;
  lastDecision.value = null;
  approvalFilters.value = NO_FILTERS;
  teams.value = null;
  setMode("request", false);
}

/**
 * Approval mode's list beside pwalists (actions/lists.ts): opened at unlock in the mode of the
 * last session, switched automatically once both lists are in; refreshed through the change
 * registry (actions/session_lists.ts).
 */
export const approvalsModel: ListModel = {
  open: async () => {
    restoreMode();
    await refreshApprovals();
  },
  settled: applyAutoMode,
  reset: resetApprovals,
};

// ---- Approval detail (spec §2) ----

function setDetail(oid: string, p: Partial<NonNullable<typeof approvalDetail.value>>): void {
  if (approvalDetail.value?.oid === oid) approvalDetail.value = { ...approvalDetail.value, ...p };
}

function showApproval(oid: string): void {
  lastDecision.value = null;
  approvalDetail.value = {
    oid,
    row: approvalRows.value.find((r) => r.oid === oid) ?? null,
    entity: null,
    comments: [],
  };
}

export async function openApproval(oid: string): Promise<void> {
  showApproval(oid);
  openSheet({ kind: "approval", oid });
  await Promise.all([loadApproval(oid), loadComments(oid)]);
}

/**
 * "Next" after a decision: the next approval waiting for this person takes the decided one's
 * place in the same panel (Back still leads to the list, not through every approval decided).
 */
export async function openNextApproval(oid: string): Promise<void> {
  const from = approvalDetail.value?.oid;
  showApproval(oid);
  sheets.value = sheets.value.map((s) =>
    s.sheet.kind === "approval" && s.sheet.oid === from
      ? { ...s, sheet: { kind: "approval", oid } }
      : s
  );
  await Promise.all([loadApproval(oid), loadComments(oid)]);
}

async function loadApproval(oid: string, networkFirst = false): Promise<void> {
  try {
    await cacheFirst({
      store: "approvals",
      key: `approval:${oid}`,
      schema: api.details.response,
      networkFirst,
      fetch: () => call(api.details, { query: { record: oid } }),
      show: (d) => d.approvalentity[0] && setDetail(oid, { entity: d.approvalentity[0] }),
    });
  } catch (err) {
    pushBanner(messageOf(err));
  }
}

async function loadComments(oid: string): Promise<void> {
  await lookup(
    "approvals",
    `comments:${oid}`,
    api.comments.response,
    () => call(api.comments, { query: { foreignentityoid: oid } }),
    (d) => setDetail(oid, { comments: d.comments }),
  );
}

/** spec §7 pwacomments. False when it did not land (the banner says why). */
async function postComment(oid: string, text: string): Promise<boolean> {
  try {
    await call(api.addComment, { body: { oid, comment: text.trim() } });
    return true;
  } catch (err) {
    pushBanner(messageOf(err));
    return false;
  }
}

export async function addApprovalComment(text: string): Promise<boolean> {
  const d = approvalDetail.value;
  if (!d || !text.trim()) return false;
  const ok = await busy(() => postComment(d.oid, text));
  if (ok) await Promise.all([loadComments(d.oid), loadApproval(d.oid, true)]);
  return ok === true;
}

/** spec §2 teams (pwaoverviewteams), read when the person opens them; cached like the rest. */
export async function loadTeams(): Promise<void> {
  if (teams.value) return;
  teamsFailed.value = false;
  await lookup(
    "approvals",
    "teams",
    api.overviewTeams.response,
    () => call(api.overviewTeams),
    (d) => (teams.value = d.teamlist),
  );
  if (!teams.value) teamsFailed.value = true;
}

// ---- Decisions (spec §4): only in status new, with the flags; blocking, never optimistic ----

type Decision = "approve" | "reject";

/** The entity the buttons were shown for, if it still allows the decision. */
function decidable(decision: Decision): ApprovalRequest | null {
  const e = approvalDetail.value?.entity;
  if (!e || e.statusCode !== "new") return null;
  return (decision === "approve" ? e.canApprove : e.canReject) ? e : null;
}

/** How messages name the approval: its request's purpose and amount, not its id. */
export const approvalWords = (e: ApprovalRequest) => requestWords(e, formatLocale());

/**
 * Approve asks for a confirmation that says what is approved. Reject opens the rejection
 * panel: an optional reason for the requester (spec §4: required for reject-note types that
 * have no comment yet), and a red "Reject" that is the confirmation.
 */
export function confirmDecision(decision: Decision): void {
  const e = decidable(decision);
  if (!e) return;
  if (decision === "reject") {
    openSheet({ kind: "rejectNote" });
    return;
  }
  askConfirm({
    message: t("approval.approveConfirm", { what: approvalWords(e) }),
    extra: t("approval.decisionExtra", { description: e.description }),
    showNo: true,
    yesLabel: t("approval.approve"),
    onYes: () => void busy(() => decide(e, decision)),
  });
}

/** The rejection panel's state: whether this rejection needs a reason (spec §4). */
export function rejectNeedsNote(): boolean {
  const e = approvalDetail.value?.entity;
  return !!e && e.subType.requireRejectNote && !e.hasRejectNote;
}

/**
 * spec §4 rejection: the reason (optional unless the type requires a note) travels with the
 * rejection and is stored with the vote in one write, then shown to the requester.
 */
export async function rejectWithNote(note: string): Promise<boolean> {
  const e = decidable("reject");
  if (!e || (rejectNeedsNote() && !note.trim())) return false;
  const done = await busy(async () => {
    closeSheet();
    const ok = await decide(e, "reject", note.trim() || undefined);
    if (ok) void loadComments(e.oid);
    return ok;
  });
  return done === true;
}

/**
 * One decision, shown only once the server has answered. A refusal or a failure leaves the
 * approval as it was (it is re-read) and says why in an error banner.
 */
async function decide(e: ApprovalRequest, decision: Decision, note?: string): Promise<boolean> {
  progress.value = t(decision === "approve" ? "approval.approving" : "approval.rejecting");
  try {
    const r = await call(decision === "approve" ? api.approve : api.reject, {
      body: {
        oid: e.oid,
        archive: e.archive,
        isDelegated: e.isDelegated,
        ...(note ? { note } : {}),
      },
    });
    const next = r.approvalentity[0];
    if (next) {
      setDetail(e.oid, { entity: next });
      approvalRows.value = approvalRows.value.map((x) =>
        x.oid === next.oid ? { ...x, ...rowOf(next) } : x
      );
    }
    // The detail now offers the next approval waiting for this person (or says none is left).
    lastDecision.value = { oid: e.oid, decision };
    showNotice(
      t(decision === "approve" ? "approval.approvedNotice" : "approval.rejectedNotice", {
        what: approvalWords(e),
      }),
    );
    // The answer carries the approval as it now is: kept in the cache as shown, not read again.
    // What it changed for others (the requester, the team) reaches them through the change
    // channel; this phone's stream skips its own echo (actions/changes.ts).
    markEcho("approval", e.oid);
    await writeCache("approvals", "pwalistrequests", { approvallist: approvalRows.value });
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.code === "reject_note_required") {
      openSheet({ kind: "rejectNote" });
    } else pushBanner(messageOf(err));
    await loadApproval(e.oid, true);
    return false;
  } finally {
    progress.value = null;
  }
}

const rowOf = (e: ApprovalRequest) => ({
  statusCode: e.statusCode,
  canApprove: e.canApprove,
  canReject: e.canReject,
  canReview: e.canReview,
  isDelegated: e.isDelegated,
  canEdit: e.canEdit,
  myVote: e.myVote,
});

// ---- The approver's edit (spec §2 edit button, §4 'cancel and recreate the approval?') ----

export function confirmApprovalEdit(): void {
  const e = approvalDetail.value?.entity;
  if (!e || e.statusCode !== "new" || !e.canEdit) return;
  askConfirm({
    message: t("approval.editConfirm"),
    extra: t("approval.editExtra"),
    showNo: true,
    yesLabel: t("approval.recreate"),
    onYes: () =>
      openEdit({
        oid: e.sourceEntityOid,
        typeOid: e.typeOid,
        purpose: e.purpose,
        costCenterOid: e.costCenterOid,
        GLOid: e.GLOid,
        projectOid: e.projectOid,
        approvalOid: e.oid,
      }),
  });
}

/** Saves the approver's edit: the request changes and its approval is recreated. */
export async function saveApprovalEdit(): Promise<void> {
  const d = editDraft.value;
  if (!d?.approvalOid) return;
  const v = checkEdit(d);
  if (v) {
    formError.value = t(v.key as TranslationKey, v.params);
    return;
  }
  await busy(async () => {
    try {
      await call(requestsApi.reissueApproval, { body: { expenseRequest: editBody(d) } });
    } catch (err) {
      formError.value = messageOf(err);
      return;
    }
    editDraft.value = null;
    await refreshApprovals({ networkFirst: true });
    const fresh = approvalRows.value.find((r) =>
      r.sourceEntityOid === d.oid && r.statusCode === "new"
    );
    closeAllSheets();
    if (fresh) {
      // A change the decisions do not depend on keeps the approval (spec §4).
      if (fresh.oid !== d.approvalOid) {
        showNotice(t("approval.recreated", { what: requestWords(fresh, formatLocale()) }));
      }
      void openApproval(fresh.oid);
    }
  });
}
