import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import type { Comment } from "../shared/contract/requests.ts";
import { t } from "../i18n/index.ts";
import { shortDateTime } from "../i18n/display.ts";
import type { OutqView } from "../state/outq.ts";
import { working } from "../state/session.ts";
import { QueuedState } from "./FailedWrites.tsx";

/**
 * spec §2 comments with an add box (request and approval detail): only deletable comments
 * (canBeDeleted) show a delete link; the box shows when adding is allowed.
 */
export function Comments(props: {
  comments: Comment[];
  /** Resolves true when the comment landed (the box is then emptied). */
  onAdd?: (text: string) => Promise<boolean>;
  onDelete?: (oid: string) => void;
  /** Comments written without a network, waiting in the offline queue (spec §1 offline). */
  pending?: OutqView[];
}) {
  useSignals();
  const [text, setText] = useState("");
  const busy = working.value;
  const onAdd = props.onAdd;
  const pending = props.pending ?? [];
  return (
    <section aria-label={t("detail.comments")}>
      <h3>{t("detail.comments")}</h3>
      {props.comments.length
        ? (
          <ul className="comments">
            {props.comments.map((c) => (
              <li key={c.oid} className="comment">
                <div className="comment-head">
                  <strong>{c.comment.fName} {c.comment.lName}</strong>
                  <time>{shortDateTime(Date.parse(c.createdate))}</time>
                  {c.canBeDeleted && props.onDelete
                    ? (
                      <button
                        type="button"
                        className="link"
                        disabled={busy}
                        aria-label={`${t("detail.deleteComment")}: ${c.comment.text}`}
                        onClick={() => props.onDelete!(c.oid)}
                      >
                        {t("detail.deleteComment")}
                      </button>
                    )
                    : null}
                </div>
                <p>{c.comment.text}</p>
              </li>
            ))}
          </ul>
        )
        : pending.length
        ? null
        : <p className="empty">{t("detail.noComments")}</p>}
      {pending.length
        ? (
          <ul className="comments" aria-label={t("outq.pending")}>
            {pending.map((e) => (
              <li key={e.seq} className="comment pending">
                <div className="comment-head">
                  <QueuedState entry={e} />
                </div>
                <p>{e.label}</p>
              </li>
            ))}
          </ul>
        )
        : null}
      {onAdd
        ? (
          <form
            className="comment-box"
            onSubmit={async (ev) => {
              ev.preventDefault();
              if (await onAdd(text)) setText("");
            }}
          >
            <textarea
              aria-label={t("detail.newComment")}
              placeholder={t("detail.newComment")}
              maxLength={1000}
              value={text}
              onInput={(ev) => setText((ev.target as HTMLTextAreaElement).value)}
            />
            <button type="submit" className="secondary" disabled={busy || !text.trim()}>
              {t("detail.send")}
            </button>
          </form>
        )
        : null}
    </section>
  );
}
