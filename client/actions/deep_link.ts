import { parsePushLink } from "../shared/push_links.ts";
import { confirmDecision, openApproval } from "./approvals.ts";
import { openDetail } from "./requests.ts";
import { openTransaction } from "./transactions.ts";
import { captureRequest } from "../state/capture.ts";
import { approvalDetail } from "../state/approvals.ts";
import { t } from "../i18n/index.ts";
import { showNotice } from "../state/ui.ts";

// Deep links of push notifications (spec §1 push notifications: "a notification click opens the app
// on that item"), `/?open=kind:oid`. Loaded on demand with the main screen's actions: the PIN pad
// never needs it, and a link is only opened once the app is unlocked.

/**
 * Opens the item a deep link names in its detail panel, on top of whatever is open (Back
 * returns there). False when the link names nothing we know; the app stays as it is.
 */
export async function openLink(url: string): Promise<boolean> {
  const link = parsePushLink(url);
  if (!link) return false;
  switch (link.kind) {
    case "request":
      await openDetail(link.oid);
      return true;
    case "approval":
      await openApproval(link.oid);
      if (link.action === "approve" || link.action === "reject") preselect(link.oid, link.action);
      return true;
    case "transaction":
      // A purchase's "Add receipt": its "Take photo" control takes the focus once shown.
      captureRequest.value = link.action === "receipt" ? link.oid : null;
      await openTransaction(link.oid);
      return true;
    default:
      return false;
  }
}

/**
 * A push's "Approve" or "Reject": the decision pre-selected on the approval as read now (the
 * server's flags), to confirm or change there — "Approve" asks "Approve …?", "Reject" opens the
 * rejection panel. Nothing is sent before that tap. An approval that no longer waits for this
 * person says so instead.
 */
function preselect(oid: string, decision: "approve" | "reject"): void {
  const d = approvalDetail.value;
  if (d?.oid !== oid) return; // another item was opened meanwhile
  const e = d.entity;
  const can = e && e.statusCode === "new" && (decision === "approve" ? e.canApprove : e.canReject);
  if (can) confirmDecision(decision);
  else showNotice(t("pushui.decisionGone"));
}
