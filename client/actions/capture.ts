import { t } from "../i18n/index.ts";
import { type CapturedPage, captureDraft } from "../state/capture.ts";
import { txDetail } from "../state/transactions.ts";
import { receiptReading } from "../state/reading.ts";
import { attachReceipt } from "./receipts.ts";
import { readForTransaction } from "./reading.ts";

// "Take photo" (spec §5 Upload; the receipt at the moment of purchase): each photo becomes a
// page, scaled and enhanced on the device (client/lib/image_prep.ts, loaded on first use);
// Enhance can be undone until "Send receipt"; one page goes up as a JPEG, several as one PDF
// made on the device (client/lib/jpeg_pdf.ts), through the same upload as any receipt — so
// without a network it waits, encrypted, in the offline queue and is sent once online.
// Nothing imports this module back.

/** The file the camera gave: a PDF goes up as it is; a photo becomes the next page. */
export async function addPhoto(file: File): Promise<void> {
  const txOid = txDetail.value?.oid;
  if (!txOid) return;
  const isPdf = file.type === "application/pdf" || /\.pdf$/i.test(file.name);
  if (isPdf && !captureDraft.value?.pages.length) {
    await attachReceipt(file);
    return;
  }
  const d0 = captureDraft.value?.txOid === txOid ? captureDraft.value : null;
  if (d0?.preparing) return;
  captureDraft.value = d0
    ? { ...d0, preparing: true, error: null }
    : { txOid, pages: [], enhance: true, preparing: true, error: null };
  let page: CapturedPage | null = null;
  try {
    const { preparePage } = await import("../lib/image_prep.ts");
    const { plain, enhanced } = await preparePage(file, { enhance: true });
    page = {
      id: crypto.randomUUID(),
      plain: { ...plain, url: URL.createObjectURL(plain.file) },
      enhanced: enhanced ? { ...enhanced, url: URL.createObjectURL(enhanced.file) } : null,
    };
  } catch {
    // not a picture this browser can decode
  }
  const d = captureDraft.value;
  if (d?.txOid !== txOid) {
    if (page) revoke([page]);
    return;
  }
  captureDraft.value = page
    ? { ...d, pages: [...d.pages, page], preparing: false }
    : { ...d, preparing: false, error: t("capture.failed") };
  // Read on the device while the person looks at the photo: every page so far, as shot.
  const pages = captureDraft.value?.pages ?? [];
  if (page) void readForTransaction(txOid, pages.map((p) => p.plain.file), keyOf(pages));
}

const keyOf = (pages: CapturedPage[]) => pages.map((p) => p.id).join(" ");

export function setEnhance(on: boolean): void {
  const d = captureDraft.value;
  if (d) captureDraft.value = { ...d, enhance: on };
}

/** "Discard photos": the pages go, and what was read from them. */
export function discardCapture(): void {
  const d = captureDraft.value;
  endCapture();
  if (d && receiptReading.value?.key === keyOf(d.pages)) receiptReading.value = null;
}

/** The pages go (sent or thrown away); what was read from them is the caller's to keep. */
function endCapture(): void {
  const d = captureDraft.value;
  if (d) revoke(d.pages);
  captureDraft.value = null;
}

function revoke(pages: CapturedPage[]): void {
  for (const p of pages) {
    URL.revokeObjectURL(p.plain.url);
    if (p.enhanced) URL.revokeObjectURL(p.enhanced.url);
  }
}

/** A name that says what it is and when: receipt-2026-11-26-0712.jpg (local time). */
function receiptName(ext: "jpg" | "pdf"): string {
  const d = new Date();
  const two = (n: number) => String(n).padStart(2, "0");
  return `receipt-${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}-${
    two(d.getHours())
  }${two(d.getMinutes())}.${ext}`;
}

/** "Send receipt": the pages, enhanced or not, as one receipt of the transaction on screen. */
export async function sendCapture(): Promise<void> {
  const d = captureDraft.value;
  if (!d || d.preparing || !d.pages.length || txDetail.value?.oid !== d.txOid) return;
  const pages = d.pages.map((p) => (d.enhance && p.enhanced) || p.plain);
  let file: File;
  if (pages.length === 1) {
    file = new File([pages[0].file], receiptName("jpg"), { type: "image/jpeg" });
  } else {
    const { pdfFromJpegs } = await import("../lib/jpeg_pdf.ts");
    const pdf = pdfFromJpegs(
      await Promise.all(pages.map(async (p) => ({
        jpeg: new Uint8Array(await p.file.arrayBuffer()),
        width: p.width,
        height: p.height,
      }))),
    );
    file = new File([pdf as Uint8Array<ArrayBuffer>], receiptName("pdf"), {
      type: "application/pdf",
    });
  }
  // The first page's preview stands for the receipt (spec §9 preview).
  const ok = await attachReceipt(file, { file, name: file.name, preview: pages[0].preview });
  // Sent: what was read from it stays shown.
  if (ok && captureDraft.value === d) endCapture();
}
