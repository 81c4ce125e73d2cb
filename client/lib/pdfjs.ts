/**
 * pdf.js behind one module: build.ts makes this its own entry (`/assets/pdfjs-<hash>.js`)
 * and `client/lib/pdf.ts` reaches it only through `import()`, so the first load never
 * carries it (spec §2 PDF viewer). Import `pdf.ts`, not this file.
 */
import { getDocument, GlobalWorkerOptions, PDFWorker } from "pdfjs-dist/legacy/build/pdf.mjs";

/** Set by build.ts (esbuild `define`): the hashed worker file, served from our origin. */
declare const QC_PDF_WORKER_URL: string;
/** Set by build.ts: the folder of the no-WebAssembly image decoders, ending in "/". */
declare const QC_PDF_WASM_URL: string;

// A module worker from our own origin: allowed by `worker-src 'self'` as it is.
GlobalWorkerOptions.workerSrc = QC_PDF_WORKER_URL;

export { getDocument, PDFWorker };
export const WASM_URL: string = QC_PDF_WASM_URL;
