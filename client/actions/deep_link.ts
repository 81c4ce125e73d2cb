import { parsePushLink } from "../shared/push_links.ts";
import { openApproval } from "./approvals.ts";
import { openDetail } from "./requests.ts";
import { openTransaction } from "./transactions.ts";
import { captureRequest } from "../state/capture.ts";

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
