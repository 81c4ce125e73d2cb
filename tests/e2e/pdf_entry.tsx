/**
 * Test and bench page module (never in the production build: build.ts takes it only through
 * `extraEntries`). Exposes the PDF viewer and the image preparation as the app uses them,
 * sharing the app's chunks, so a test loads pdf.js exactly the way a screen will.
 */
import { createRoot } from "react-dom/client";
import { PdfViewer } from "../../client/components/PdfViewer.tsx";
import { prepareImage, previewForPdf } from "../../client/lib/image_prep.ts";

export interface PdfCheck {
  /** Mounts a PdfViewer at the end of <body> (in a 360 px wide box); returns the box. */
  mount(data: ArrayBuffer, name: string): HTMLElement;
  unmount(): void;
  prepareImage: typeof prepareImage;
  previewForPdf: typeof previewForPdf;
}

let unmount = () => {};

const check: PdfCheck = {
  mount(data, name) {
    unmount();
    const box = document.createElement("div");
    box.id = "pdf-check";
    box.style.width = "360px";
    document.body.append(box);
    const root = createRoot(box);
    root.render(<PdfViewer data={data} name={name} />);
    unmount = () => {
      root.unmount();
      box.remove();
    };
    return box;
  },
  unmount: () => unmount(),
  prepareImage,
  previewForPdf,
};

(globalThis as unknown as { qcPdfCheck: PdfCheck }).qcPdfCheck = check;
