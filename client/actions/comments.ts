import { requests as reqApi } from "../api/contract/requests.ts";
import { call } from "../api/http.ts";
import { pushBanner } from "../state/ui.ts";
import { busy } from "./busy.ts";
import { messageOf } from "./messages.ts";

// Comments on whatever a detail panel shows (request, card, transaction): the add and the
// delete are the same everywhere but the call that adds and the list that is re-read.

/**
 * Adds `text` on `oid` through `send` (blocking), then re-reads the comments; false, with
 * a banner, when it failed or there was nothing to send.
 */
export async function sendComment(
  oid: string | undefined,
  text: string,
  send: (oid: string, text: string) => Promise<unknown>,
  reload: (oid: string) => Promise<void>,
): Promise<boolean> {
  if (!oid || !text.trim()) return false;
  const ok = await busy(async () => {
    try {
      await send(oid, text.trim());
      return true;
    } catch (err) {
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
