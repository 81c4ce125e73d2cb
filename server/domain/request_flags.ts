import type { RequestRecord } from "../store/requests.ts";

/**
 * The permission flags of spec §3/§6 for one caller, computed from the request's state.
 * The UI shows buttons from them, and every write checks the same function again, so a
 * flag the client ignores changes nothing (403).
 */
export interface RequestFlags {
  canSubmit: boolean;
  canEdit: boolean;
  canCancel: boolean;
  canClose: boolean;
  canGenerate: boolean;
  canComment: boolean;
  needsAttention: boolean;
}

/** spec §4: a closed card (or closed request) is read-only. */
export function isClosed(r: Pick<RequestRecord, "cardStatusCode">): boolean {
  return r.cardStatusCode === "Closed";
}

export function requestFlags(
  r: Pick<RequestRecord, "authorOid" | "status" | "cardStatusCode" | "hasCard">,
  callerOid: string,
): RequestFlags {
  const mine = r.authorOid === callerOid;
  const closed = isClosed(r);
  const open = !closed &&
    (r.status === "new" || r.status === "requested" || r.status === "accepted");
  return {
    canSubmit: mine && r.status === "new",
    // Editing an accepted request may reissue its approval (spec §4 submit flow).
    canEdit: mine && open,
    // Before a decision, or after acceptance: with a card, cancel closes the card and
    // cancels what is left of the request (spec §2 Card detail 'cancel card').
    canCancel: mine && !closed &&
      (r.status === "new" || r.status === "requested" || r.status === "accepted"),
    // Closing ends an accepted request (and its card): spec §4, the wallet shows it Closed.
    canClose: mine && r.status === "accepted" && !closed,
    canGenerate: mine && r.status === "accepted" && !r.hasCard && !closed,
    // spec §4: cancelled or moved requests and closed cards are read-only.
    canComment: mine && r.status !== "cancelled" && r.status !== "moved" && !closed,
    needsAttention: mine && r.status === "new",
  };
}
