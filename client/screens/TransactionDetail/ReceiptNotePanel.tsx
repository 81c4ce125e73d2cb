import { useSignals } from "@preact/signals-react/runtime";
import { RECEIPT_NOTE_MAX } from "../../shared/contract/documents.ts";
import { editNote, saveNote } from "../../actions/receipts.ts";
import { t } from "../../i18n/index.ts";
import { noteDraft } from "../../state/receipts.ts";
import { working } from "../../state/session.ts";
import { FooterSubmit } from "../../components/PanelFooter.tsx";

/** spec §2 receipt notes panel: a textarea of at most 200 characters (spec §5, §9). */
export function ReceiptNoteBody() {
  useSignals();
  const d = noteDraft.value;
  if (!d) return null;
  return (
    <form
      id="form-receipt-note"
      className="form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void saveNote();
      }}
    >
      <label>
        <span>{t("receipts.noteTitle")}</span>
        <textarea
          rows={5}
          maxLength={RECEIPT_NOTE_MAX}
          value={d.note}
          onInput={(e) => editNote(e.currentTarget.value)}
        />
      </label>
      <p className="hint" aria-live="polite">
        {t("receipts.noteCount", { count: d.note.length, max: RECEIPT_NOTE_MAX })}
      </p>
      {d.error ? <p className="form-error" role="alert">{d.error}</p> : null}
      <FooterSubmit form="form-receipt-note" disabled={working.value}>
        {t("receipts.saveNote")}
      </FooterSubmit>
    </form>
  );
}
