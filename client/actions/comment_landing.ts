import type { Comment } from "../shared/contract/requests.ts";
import { txDetail } from "../state/transactions.ts";

// What happens on screen when a comment queued offline lands (spec §1 offline). Apart from
// comments.ts (first load) and actions/replay.ts (loaded on demand), which both use it, so
// that neither imports the other.

/** The lists to re-read when a queued comment lands, for as long as this page lives. */
const reloaders = new Map<string, (oid: string) => Promise<void>>();

/** Re-reads waiting after queued comments landed: one per list, however many landed. */
const dueReloads = new Map<string, ReturnType<typeof setTimeout>>();
const RELOAD_AFTER_MS = 300;

/**
 * A queued comment that landed: appended to the open transaction's list at once; any other
 * list it was written in is re-read shortly after (once for a whole replay).
 */
export function commentLanded(w: { key: string; target: string }, answer: unknown): void {
  const reload = reloaders.get(w.key);
  reloaders.delete(w.key);
  const c = (answer as { comment?: Comment } | undefined)?.comment;
  const d = txDetail.value;
  if (c && d?.oid === w.target) {
    if (!d.comments.some((x) => x.oid === c.oid)) {
      txDetail.value = { ...d, comments: [...d.comments, c] };
    }
    return;
  }
  if (!reload) return;
  clearTimeout(dueReloads.get(w.target));
  dueReloads.set(
    w.target,
    setTimeout(() => {
      dueReloads.delete(w.target);
      void reload(w.target);
    }, RELOAD_AFTER_MS),
  );
}

/** Remembers which list to re-read when the comment queued under `key` lands. */
export function reloadWhenLanded(key: string, reload: (oid: string) => Promise<void>): void {
  reloaders.set(key, reload);
}
