import { useEffect } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t, type TranslationKey } from "../i18n/index.ts";
import { discardWrite, retryWrite, startQueue } from "../actions/replay.ts";
import { outq, type OutqView } from "../state/outq.ts";
import { working } from "../state/session.ts";

// The offline write queue on screen (spec §1 offline): a queued write's state where it belongs
// (under the comments, in the receipts, on the VAT row) and, on the main screen, every
// write the server refused, each with Retry and Discard.

/** What a queued write is, in words ('Comment: Taxi', 'VAT type: Has VAT'). */
export function describeQueued(e: OutqView): string {
  const label = e.kind === "dotax" ? t(`vat.flag.${e.label}` as TranslationKey) : e.label;
  return t(`outq.kind.${e.kind}` as TranslationKey, { label });
}

/** A queued write's state: Pending, Sending…, or Not sent with the server's message. */
export function QueuedState(props: { entry: OutqView; name?: string }) {
  useSignals();
  const e = props.entry;
  const name = props.name ?? describeQueued(e);
  if (e.state !== "failed") {
    return (
      <span className="queued-state">
        {e.state === "sending" ? t("outq.sending") : t("outq.pending")}
      </span>
    );
  }
  const busy = working.value;
  return (
    <span className="queued-state failed">
      <span role="alert">{t("outq.failed", { message: e.error ?? "" })}</span>{" "}
      <button
        type="button"
        className="link"
        disabled={busy}
        aria-label={t("outq.retryNamed", { label: name })}
        onClick={() => void retryWrite(e.seq)}
      >
        {t("outq.retry")}
      </button>{" "}
      <button
        type="button"
        className="link danger"
        disabled={busy}
        aria-label={t("outq.discardNamed", { label: name })}
        onClick={() => void discardWrite(e.seq)}
      >
        {t("outq.discard")}
      </button>
    </span>
  );
}

/**
 * On the main screen: starts the queue for this unlocked session (what waits is sent now
 * and whenever the network returns), says how many writes wait, and lists the refused
 * ones. Renders nothing while the queue is empty.
 */
export function FailedWrites() {
  useSignals();
  useEffect(() => startQueue(), []);
  const list = outq.value;
  const failed = list.filter((e) => e.state === "failed");
  const waiting = list.length - failed.length;
  if (!list.length) return null;
  return (
    <section className="failed-writes" aria-label={t("outq.title")} style={STYLE}>
      {waiting ? <p role="status">{t("outq.waiting", { count: waiting })}</p> : null}
      {failed.length
        ? (
          <ul style={{ listStyle: "none", margin: 0, padding: 0 }}>
            {failed.map((e) => (
              <li key={e.seq}>
                <strong>{describeQueued(e)}</strong> <QueuedState entry={e} />
              </li>
            ))}
          </ul>
        )
        : null}
    </section>
  );
}

// Small and in the page's flow (no stylesheet rule of its own): above the main screen's
// header, never over a panel's buttons.
const STYLE = {
  padding: "4px 12px",
  background: "#fff8e1",
  color: "#5d4200",
  fontSize: "14px",
  maxWidth: "560px",
  margin: "0 auto",
} as const;
