import { useRef } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import type { DocumentInfo } from "../shared/contract/documents.ts";
import { locale, t } from "../i18n/index.ts";
import { sizeText } from "../i18n/display.ts";
import { shortName } from "../lib/file_display.ts";
import type { UploadState } from "../state/receipts.ts";
import { working } from "../state/session.ts";
import { ProgressBar } from "./ProgressBar.tsx";

/**
 * spec §2 reusable document panel: the list (open, download, delete only when allowed, a
 * lock icon for advanced-security documents), a file chooser restricted to the accepted
 * extensions (a button opening a hidden input; the chosen names listed), a progress bar with its percent, and Upload disabled until files are chosen.
 * Names are cut at 22 characters, sizes in kB or MB (spec §5, §9).
 */
export function DocumentPanel(props: {
  documents: DocumentInfo[];
  loading: boolean;
  files: File[];
  upload: UploadState | null;
  accept: string;
  secure: boolean;
  canAdd: boolean;
  onChoose: (files: File[]) => Promise<boolean>;
  onSecure: (secure: boolean) => void;
  onUpload: () => void;
  onOpen: (doc: DocumentInfo) => void;
  onDownload: (doc: DocumentInfo) => void;
  onDelete: (doc: DocumentInfo) => void;
}) {
  useSignals();
  const input = useRef<HTMLInputElement>(null);
  const loc = locale.value;
  const busy = working.value;
  return (
    <div className="document-panel">
      {props.loading && !props.documents.length
        ? <p className="loading" role="status">{t("app.loading")}</p>
        : props.documents.length
        ? (
          <ul className="documents" aria-label={t("docs.title")}>
            {props.documents.map((d) => (
              <li key={d.oid} className="document">
                <button
                  type="button"
                  className="link doc-name"
                  aria-label={t("docs.open", { name: d.documentName })}
                  onClick={() => props.onOpen(d)}
                >
                  {d.advancedSecurity
                    ? <span className="lock" role="img" aria-label={t("docs.locked")}>🔒</span>
                    : null}
                  {shortName(d.documentName)}
                </button>
                <span className="doc-size">{sizeText(d.size, loc)}</span>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={t("docs.download", { name: d.documentName })}
                  onClick={() => props.onDownload(d)}
                >
                  ⤓
                </button>
                {d.canBeDeleted === 1
                  ? (
                    <button
                      type="button"
                      className="icon-button danger"
                      disabled={busy}
                      aria-label={t("docs.delete", { name: d.documentName })}
                      onClick={() => props.onDelete(d)}
                    >
                      🗑
                    </button>
                  )
                  : null}
              </li>
            ))}
          </ul>
        )
        : <p className="empty">{t("docs.empty")}</p>}
      {props.canAdd
        ? (
          <form
            className="upload-form"
            onSubmit={(e) => {
              e.preventDefault();
              props.onUpload();
              if (input.current) input.current.value = "";
            }}
          >
            {
              /* A styled button opens the hidden input: no raw browser picker with its own
                "No file chosen" beside the names shown below. */
            }
            <button
              type="button"
              className="secondary wide file-choose"
              disabled={busy}
              onClick={() => input.current?.click()}
            >
              {t("docs.choose")}
            </button>
            <input
              ref={input}
              type="file"
              className="file-input"
              hidden
              tabIndex={-1}
              aria-hidden="true"
              multiple
              accept={props.accept || undefined}
              disabled={busy}
              onChange={async (e) => {
                const el = e.currentTarget;
                const ok = await props.onChoose([...(el.files ?? [])]);
                // spec §5: a refused file clears the input.
                if (!ok) el.value = "";
              }}
            />
            {props.files.length
              ? (
                <ul className="chosen" aria-label={t("docs.chosen", { count: props.files.length })}>
                  {props.files.map((f) => (
                    <li key={f.name}>{shortName(f.name)} · {sizeText(f.size, loc)}</li>
                  ))}
                </ul>
              )
              : null}
            <label className="check-row">
              <input
                type="checkbox"
                checked={props.secure}
                onChange={(e) => props.onSecure(e.currentTarget.checked)}
              />
              <span>{t("docs.secure")}</span>
            </label>
            {props.upload
              ? <ProgressBar percent={props.upload.percent} name={props.upload.name} />
              : null}
            <button
              type="submit"
              className="primary wide"
              disabled={busy || props.files.length === 0}
            >
              {t("docs.upload")}
            </button>
          </form>
        )
        : null}
    </div>
  );
}
