import { requests as reqApi } from "../shared/contract/requests.ts";
import { transactions as txApi } from "../shared/contract/transactions.ts";
import { call, NetworkError } from "../api/http.ts";
import { pushBanner } from "../state/ui.ts";
import { busy } from "./busy.ts";
import { reloadWhenLanded } from "./comment_landing.ts";
import { hasCommentUpload, uploadComment } from "./comment_upload.ts";
import { messageOf } from "./messages.ts";

// Comments on whatever a detail panel shows (request, card, transaction): the add and the
// delete are the same everywhere but the call that adds and the list that is re-read.
// Adding is safe to replay (spec §1 offline): it carries an idempotency key and, without a
// network, waits in the offline queue, shown as pending under the comments.

type CommentCall = "request.addComment" | "transaction.addComment";

/**
 * The offline queue, loaded on first use: this module is in the first load (the request
 * actions import it) and the queue is not (first-load budget). The main area has loaded
 * it already by the time a comment can be written.
 */
const offline = () => import("./replay.ts");

/**
 * Adds `text` on `oid` (blocking), then re-reads the comments; false, with a banner, when
 * it failed or there was nothing to send. `send` names the add call (`request.addComment`
 * for requests and cards, `transaction.addComment`). Without a network the comment is
 * queued and true is returned (the box empties; the comment shows as pending).
 * `request`: the request's id and archive flag, for spec §7's comment upload to a supplied
 * URL (used when the comment list named one; queued comments replay through pwaaddcomment).
 */
export async function sendComment(
  oid: string | undefined,
  text: string,
  send: CommentCall,
  reload: (oid: string) => Promise<void>,
  request?: { id: string; archive: boolean },
): Promise<boolean> {
  if (!oid || !text.trim()) return false;
  const comment = text.trim();

  const key = crypto.randomUUID();
  const q = await offline();
  const queue = async () => {
    const queued = await q.enqueue({
      key,
      kind: "comment",
      target: oid,
      label: comment,
      call: { ep: send, body: { oid, comment } },
    });
    if (queued) reloadWhenLanded(key, reload);
    return queued;
  };
  const ok = await busy(async () => {
    // Writes already wait: this one goes behind them, so they land in the order written.
    if (q.hasPending() && await queue()) return true;
    try {
      const headers = { [q.IDEMPOTENCY_KEY_HEADER]: key };
      if (send === "request.addComment" && request && hasCommentUpload(oid)) {
        const { id, archive } = request;
        const body = { oid, entityType: "expense" as const, record: oid, id, archive, comment };
        await uploadComment(body, headers);
      } else {
        await call(send === "transaction.addComment" ? txApi.addComment : reqApi.addComment, {
          body: { oid, comment },
          headers,
        });
      }
      q.kickQueue();
      return true;
    } catch (err) {
      if (err instanceof NetworkError && await queue()) return true;
      pushBanner(messageOf(err));
      return false;
    }
  });
  if (ok) await reload(oid);
  return ok === true;
}

/** spec §7 pwadeletecomment (any comment's source), then re-reads `oid`'s comments. */
export async function dropComment(
  oid: string | undefined,
  commentOid: string,
  reload: (oid: string) => Promise<void>,
): Promise<void> {
  if (!oid) return;
  await busy(async () => {
    try {
      await call(reqApi.deleteComment, { query: { record: commentOid } });
    } catch (err) {
      pushBanner(messageOf(err));
    }
  });
  await reload(oid);
}
