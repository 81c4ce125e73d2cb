import { t } from "../i18n/index.ts";
import { PdfViewer } from "./PdfViewer.tsx";

/**
 * An opened receipt or document: an image, or a PDF drawn by pdf.js (Chrome on Android has
 * no PDF viewer of its own, GUIDE §5). The bytes come from memory, never from a cache on disk.
 */
export function FileView(props: {
  name: string;
  mimeType: string;
  url: string | null;
  data: ArrayBuffer | null;
  error: string | null;
}) {
  if (props.error) return <p className="form-error" role="alert">{props.error}</p>;
  if (props.mimeType === "application/pdf") {
    return props.data
      ? <PdfViewer data={props.data} name={props.name} />
      : <p className="loading" role="status">{t("app.loading")}</p>;
  }
  return props.url
    ? <img className="file-image" src={props.url} alt={props.name} />
    : <p className="loading" role="status">{t("app.loading")}</p>;
}
