import { type Ref, useEffect, useRef } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import type { Transaction } from "../../shared/contract/transactions.ts";
import { addPhoto, discardCapture, sendCapture, setEnhance } from "../../actions/capture.ts";
import { Switch } from "../../components/Switch.tsx";
import { t } from "../../i18n/index.ts";
import { captureDraft, captureRequest } from "../../state/capture.ts";
import { queuedFor } from "../../state/outq.ts";
import { working } from "../../state/session.ts";

/** spec §5 Upload: what the camera may give (iOS turns HEIC into JPEG with this list). */
export const CAPTURE_ACCEPT = "image/jpeg,image/png,application/pdf";

/** A file input opening the rear camera, styled as a button. */
function CameraInput(
  props: { label: string; className: string; accept: string; inputRef?: Ref<HTMLInputElement> },
) {
  useSignals();
  const busy = working.value || !!captureDraft.value?.preparing;
  return (
    <label className={`button-like ${props.className}${busy ? " disabled" : ""}`}>
      <span>{props.label}</span>
      <input
        ref={props.inputRef}
        type="file"
        className="visually-hidden"
        accept={props.accept}
        capture="environment"
        disabled={busy}
        onChange={async (e) => {
          const el = e.currentTarget;
          const file = el.files?.[0];
          if (file) await addPhoto(file);
          el.value = "";
        }}
      />
    </label>
  );
}

/**
 * The receipt at the moment of purchase (spec §2 Transaction detail, §5 Upload): "Take photo"
 * opens the rear camera; the pages taken show here with Enhance (on, undoable), "Add page"
 * for a long bill and "Send receipt". Opened from a purchase notification, "Take photo" has
 * the focus, so the first tap after the PIN is the camera. A receipt waiting in the offline
 * queue is said here in words.
 */
export function CaptureSection(props: { tx: Transaction }) {
  useSignals();
  const tx = props.tx;
  const draft = captureDraft.value?.txOid === tx.oid ? captureDraft.value : null;
  const take = useRef<HTMLInputElement>(null);
  const wanted = captureRequest.value === tx.oid;
  const busy = working.value || !!draft?.preparing;
  useEffect(() => {
    if (!wanted || busy) return;
    // After the panel's own focus (it takes it when it opens: components/SidePanel.tsx). A
    // task, not an animation frame: a window opened by a notification may not paint yet.
    // Done once it holds (a disabled input, while the lists load, takes no focus).
    const id = setTimeout(() => {
      const el = take.current;
      if (!el) return;
      el.focus({ preventScroll: true });
      if (document.activeElement !== el) return;
      el.closest("label")?.scrollIntoView({ block: "nearest" });
      captureRequest.value = null;
    }, 0);
    return () => clearTimeout(id);
  }, [wanted, busy, !!draft]);
  const pending = queuedFor("receipt", tx.oid).length > 0;
  return (
    <section className="capture" aria-label={t("capture.title")}>
      {pending ? <p className="capture-pending" role="status">{t("capture.pending")}</p> : null}
      {draft
        ? (
          <>
            <ol className="capture-pages">
              {draft.pages.map((p, i) => (
                <li key={p.id}>
                  <img
                    src={(draft.enhance && p.enhanced ? p.enhanced : p.plain).url}
                    alt={t("capture.page", { n: i + 1 })}
                  />
                </li>
              ))}
            </ol>
            {draft.preparing ? <p role="status">{t("capture.preparing")}</p> : null}
            {draft.error ? <p className="field-error" role="alert">{draft.error}</p> : null}
            <Switch checked={draft.enhance} onChange={setEnhance}>
              {t("capture.enhance")}
            </Switch>
            <div className="capture-actions">
              <button
                type="button"
                className="primary"
                disabled={busy || !draft.pages.length}
                onClick={() => void sendCapture()}
              >
                {t("capture.send")}
              </button>
              <CameraInput
                label={t("capture.addPage")}
                className="capture-add"
                accept="image/jpeg,image/png"
              />
              <button type="button" className="link" disabled={busy} onClick={discardCapture}>
                {t("capture.discard")}
              </button>
            </div>
          </>
        )
        : (
          <CameraInput
            label={t("capture.take")}
            className="capture-take"
            accept={CAPTURE_ACCEPT}
            inputRef={take}
          />
        )}
    </section>
  );
}
