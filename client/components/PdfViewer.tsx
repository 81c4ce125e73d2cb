import { useEffect, useRef, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { isCancelled, loadPdf, type PdfDoc } from "../lib/pdf.ts";

/** Canvases fill the viewer's width × zoom; set through the CSSOM (CSP: no style attributes). */
const pageStyle = (zoom: number) => ({
  display: "block",
  width: `${zoom * 100}%`,
  maxWidth: "none",
  height: "auto",
  margin: "0 auto 8px",
});
/** The zoom steps of the +/- buttons (1 = the viewer's width). */
export const ZOOM_STEPS = [1, 1.5, 2, 3];
/** Pages start drawing this far before they scroll into view. */
const AHEAD = "400px 0px";
/** Used when the viewer is not laid out yet (hidden tab). */
const FALLBACK_WIDTH = 360;

/**
 * A PDF drawn with pdf.js (Chrome on Android has no inline PDF viewer): page 1
 * first, fitted to the viewer's width, then each further page as it nears the viewport.
 * Marks `qc:pdf:page1` (performance) once page 1 is drawn. Failure shows an alert.
 */
export function PdfViewer(props: { data: ArrayBuffer; name: string }) {
  useSignals();
  const box = useRef<HTMLDivElement>(null);
  const doc = useRef<PdfDoc | null>(null);
  const [pages, setPages] = useState(0);
  const [failed, setFailed] = useState(false);
  const [step, setStep] = useState(0);
  const zoom = ZOOM_STEPS[step];

  useEffect(() => {
    let gone = false;
    setPages(0);
    setFailed(false);
    loadPdf(props.data).then((d) => {
      if (gone) return void d.destroy();
      doc.current = d;
      setPages(d.numPages);
    }).catch(() => !gone && setFailed(true));
    return () => {
      gone = true;
      void doc.current?.destroy();
      doc.current = null;
    };
  }, [props.data]);

  useEffect(() => {
    const d = doc.current;
    const root = box.current;
    if (!pages || !d || !root) return;
    let gone = false;
    const canvases = Array.from(root.querySelectorAll("canvas"));
    const cs = getComputedStyle(root);
    const inner = root.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const width = Math.round((inner > 0 ? inner : FALLBACK_WIDTH) * zoom);
    const fail = (err: unknown) => {
      if (!gone && !isCancelled(err)) setFailed(true);
    };
    const draw = (i: number) => d.renderPage(i + 1, canvases[i], { width });
    let observer: IntersectionObserver | undefined;
    (async () => {
      await draw(0);
      if (gone) return;
      performance.mark("qc:pdf:page1");
      // Later pages keep page 1's proportions until drawn, so the scroll length is right.
      for (const c of canvases.slice(1)) {
        c.width = canvases[0].width;
        c.height = canvases[0].height;
      }
      observer = new IntersectionObserver((entries) => {
        for (const e of entries) {
          if (!e.isIntersecting) continue;
          observer?.unobserve(e.target);
          draw(canvases.indexOf(e.target as HTMLCanvasElement)).catch(fail);
        }
      }, { rootMargin: AHEAD });
      for (const c of canvases.slice(1)) observer.observe(c);
    })().catch(fail);
    return () => {
      gone = true;
      observer?.disconnect();
    };
  }, [pages, zoom]);

  return (
    <section className="pdf-frame" aria-label={props.name}>
      {pages && !failed
        ? (
          <div className="pdf-zoom" role="group" aria-label={t("viewer.zoom")}>
            <button
              type="button"
              className="icon-button"
              aria-label={t("viewer.zoomOut")}
              disabled={step === 0}
              onClick={() => setStep(step - 1)}
            >
              −
            </button>
            <output aria-live="polite">{Math.round(zoom * 100)} %</output>
            <button
              type="button"
              className="icon-button"
              aria-label={t("viewer.zoomIn")}
              disabled={step === ZOOM_STEPS.length - 1}
              onClick={() => setStep(step + 1)}
            >
              +
            </button>
          </div>
        )
        : null}
      {/* The pages on a dark ground with a frame: a white page never melts into the sheet. */}
      <div ref={box} className="pdf-viewer" aria-busy={!pages && !failed}>
        {failed
          ? <p role="alert">{t("doc.pdfFailed")}</p>
          : Array.from({ length: pages }, (_, i) => (
            <canvas
              key={i}
              role="img"
              aria-label={t("doc.pdfPage", { page: i + 1, pages })}
              style={pageStyle(zoom)}
            />
          ))}
      </div>
    </section>
  );
}
