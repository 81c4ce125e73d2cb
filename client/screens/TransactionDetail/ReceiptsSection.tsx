import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import type { Receipt, ReceiptRead } from "../../shared/contract/documents.ts";
import type { Transaction } from "../../shared/contract/transactions.ts";
import { acceptList } from "../../actions/files.ts";
import { attachReceipt, openNote, removeReceipt } from "../../actions/receipts.ts";
import { QueuedState } from "../../components/FailedWrites.tsx";
import { ProgressBar } from "../../components/ProgressBar.tsx";
import { formatMoney, shortDate } from "../../i18n/display.ts";
import { locale, t } from "../../i18n/index.ts";
import { shortName } from "../../lib/file_display.ts";
import { queuedFor } from "../../state/outq.ts";
import { network } from "../../state/ui.ts";
import { accounting, receiptUpload, txReceipts } from "../../state/receipts.ts";
import { working } from "../../state/session.ts";
import { FileViewer } from "./FileViewer.tsx";

function ReceiptViewer(props: { receipt: Receipt }) {
  const r = props.receipt;
  return (
    <figure className="receipt-view">
      <FileViewer
        file={{
          oid: r.oid,
          name: r.name,
          mimeType: r.mimeType,
          size: r.size,
          hasPreview: r.previewUrl !== null,
        }}
      />
      {r.note ? <figcaption>{r.note}</figcaption> : null}
      {r.read ? <ReadWithIt read={r.read} /> : null}
    </figure>
  );
}

/** What the phone read from the receipt, as sent with it (client/actions/reading.ts). */
function ReadWithIt(props: { read: ReceiptRead }) {
  const r = props.read;
  const what = [
    r.total !== null ? formatMoney(r.total, r.currency, locale.value) : null,
    r.date ? shortDate(r.date) : null,
    r.merchant,
    r.match === "match"
      ? t("reading.sentMatch")
      : r.match === "differs"
      ? t("reading.sentDiffers")
      : null,
  ].filter(Boolean).join(" · ");
  return <p className={`receipt-read receipt-read-${r.match}`}>{t("reading.sent", { what })}</p>;
}

/**
 * A file input styled as a button: the chooser (restricted per spec §5; on a phone it offers
 * the camera or the files) or the camera alone.
 */
export function Chooser(
  props: { label: string; accept?: string; capture?: boolean; className?: string },
) {
  useSignals();
  return (
    <label className={`${props.className ?? "button-like"}${working.value ? " disabled" : ""}`}>
      <span>{props.label}</span>
      <input
        type="file"
        className="visually-hidden"
        accept={props.accept}
        capture={props.capture ? "environment" : undefined}
        disabled={working.value}
        onChange={async (e) => {
          const el = e.currentTarget;
          const file = el.files?.[0];
          if (file) {
            await attachReceipt(file);
          }
          // Cleared either way: a refused type (spec §5) or the next photo of the same name.
          el.value = "";
        }}
      />
    </label>
  );
}

/** The receipt chooser's accepted types (spec §5: restricted when the accounting says so). */
export function receiptAccept(): string | undefined {
  return accounting.value.limitReceiptAttachementFormat ? acceptList() : undefined;
}

/**
 * spec §2 Transaction detail: receipt images or a PDF viewer, remove receipt, receipt notes
 * (attaching is the detail's primary action: TransactionDetailPanel). Not shown on refused transactions (spec §4); no
 * attaching once reviewed (spec §5).
 */
export function ReceiptsSection(props: { tx: Transaction }) {
  useSignals();
  const tx = props.tx;
  const known = txReceipts.value?.txOid === tx.oid;
  const list = known ? txReceipts.value!.receipts : [];
  // One count for the heading and the list under it (the list, when it is there, is a fact).
  const count = Math.max(tx.nbReceipts, list.length);
  // Offline, receipts the server has but this phone never read: said, not hidden.
  const unseen = network.value === "offline" ? count - list.length : 0;
  const [shown, setShown] = useState<string | null>(null);
  const current = list.find((r) => r.oid === shown) ?? list[0];
  const upload = receiptUpload.value;
  // Written without a network (spec §1 offline): receipts and notes waiting in the offline queue.
  const queued = queuedFor("receipt", tx.oid);
  const notes = queuedFor("note", tx.oid);
  const busy = working.value;
  return (
    <section className="receipts" aria-label={t("receipts.title")}>
      <h3>{t("receipts.count", { count })}</h3>
      {current
        ? <ReceiptViewer key={current.oid} receipt={current} />
        : count || queued.length
        ? null
        : <p className="empty">{t("receipts.none")}</p>}
      {unseen > 0
        ? <p className="offline-note">{t("receipts.offlineUnseen", { count: unseen })}</p>
        : null}
      {list.length
        ? (
          <ul className="receipt-list">
            {list.map((r) => (
              <li key={r.oid} className={r.oid === current?.oid ? "current" : ""}>
                <button
                  type="button"
                  className="link"
                  aria-pressed={r.oid === current?.oid}
                  aria-label={t("receipts.show", { name: r.name })}
                  onClick={() => setShown(r.oid)}
                >
                  {shortName(r.name)}
                </button>
                <button
                  type="button"
                  className="link"
                  disabled={busy || tx.readOnlyVAT}
                  aria-label={t("receipts.noteFor", { name: r.name })}
                  onClick={() => openNote(r)}
                >
                  {t("receipts.note")}
                </button>
                {notes.filter((n) => n.ref === r.oid).map((n) => (
                  <span key={n.seq} className="queued-note">
                    {n.label} <QueuedState entry={n} />
                  </span>
                ))}
                {r.canBeDeleted === 1 && !tx.readOnlyVAT
                  ? (
                    <button
                      type="button"
                      className="link danger"
                      disabled={busy}
                      aria-label={t("receipts.removeNamed", { name: r.name })}
                      onClick={() => removeReceipt(r)}
                    >
                      {t("receipts.remove")}
                    </button>
                  )
                  : null}
              </li>
            ))}
          </ul>
        )
        : null}
      {queued.length
        ? (
          <ul className="receipt-list" aria-label={t("outq.pending")}>
            {queued.map((e) => (
              <li key={e.seq} className="pending">
                <span>{shortName(e.label)}</span> <QueuedState entry={e} />
              </li>
            ))}
          </ul>
        )
        : null}
      {upload ? <ProgressBar percent={upload.percent} name={upload.name} /> : null}
    </section>
  );
}
