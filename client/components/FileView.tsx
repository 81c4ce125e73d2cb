import { useSignals } from "@preact/signals-react/runtime";
import { locale, t } from "../i18n/index.ts";
import { sizeText } from "../lib/file_display.ts";
import { PdfViewer } from "./PdfViewer.tsx";

/**
 * What a viewer shows of a file: its preview (spec §7 pwapreview, ≤ 1024 px), nothing when
 * it has none, or the original once asked for.
 */
export type FileStage = "preview" | "none" | "original";

/**
 * An opened receipt or document: the preview first, and the original (an image, or a PDF
 * drawn by pdf.js: Chrome on Android has no PDF viewer of its own, engineering.md §5) only after
 * "Open original" — a 10 MB file is not fetched just to be looked at. The bytes come from
 * memory, never from a cache on disk.
 */
export function FileView(props: {
  name: string;
  mimeType: string;
  /** Bytes of the original (for the button's label). */
  size: number;
  stage: FileStage;
  url: string | null;
  data: ArrayBuffer | null;
  error: string | null;
  onOriginal: () => void;
}) {
  useSignals();
  const loading = <p className="loading" role="status">{t("app.loading")}</p>;
  const original = props.stage === "original";
  let body;
  if (props.error) body = <p className="form-error" role="alert">{props.error}</p>;
  else if (original && props.mimeType === "application/pdf") {
    body = props.data ? <PdfViewer data={props.data} name={props.name} /> : loading;
  } else if (props.stage === "none") {
    body = <p className="no-preview">{t("viewer.noPreview")}</p>;
  } else {
    body = props.url
      ? (
        <img
          className="file-image"
          src={props.url}
          alt={original ? props.name : t("viewer.previewOf", { name: props.name })}
        />
      )
      : loading;
  }
  return (
    <div className="file-view">
      {body}
      {original
        ? null
        : (
          <button type="button" className="secondary original-button" onClick={props.onOriginal}>
            {t("viewer.original", { size: sizeText(props.size, locale.value) })}
          </button>
        )}
    </div>
  );
}
