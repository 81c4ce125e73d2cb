/**
 * One PDF from the photos of a long receipt (spec §5 Upload: one receipt, its pages), made
 * on the device: each JPEG becomes a page as it is (DCTDecode, no re-encoding), scaled so
 * the page's long side is that of A4 (842 pt). The receipt viewer shows its pages like any
 * PDF's. Pure: bytes in, bytes out; no DOM.
 */

export interface JpegPage {
  /** A baseline or progressive JPEG, RGB. */
  jpeg: Uint8Array;
  width: number;
  height: number;
}

/** Long side of a page, pt (A4). */
export const PAGE_LONG_SIDE = 842;

const enc = new TextEncoder();

/** A PDF 1.4 document with one page per JPEG, in order. */
export function pdfFromJpegs(pages: JpegPage[]): Uint8Array {
  if (!pages.length) throw new Error("a PDF needs at least one page");
  const parts: Uint8Array[] = [];
  const offsets: number[] = [];
  let size = 0;
  const push = (b: Uint8Array) => {
    parts.push(b);
    size += b.length;
  };
  const text = (s: string) => push(enc.encode(s));
  /** Object `n` (1-based); its offset for the cross-reference table. */
  const object = (n: number, body: () => void) => {
    offsets[n] = size;
    text(`${n} 0 obj\n`);
    body();
    text("\nendobj\n");
  };
  // Objects: 1 catalog, 2 page tree, then per page i: page, content, image.
  const pageObj = (i: number) => 3 + i * 3;
  // %PDF header with a binary comment line, so transfer tools treat the file as binary.
  push(new Uint8Array([...enc.encode("%PDF-1.4\n%"), 0xe2, 0xe3, 0xcf, 0xd3, 0x0a]));
  object(1, () => text("<< /Type /Catalog /Pages 2 0 R >>"));
  const kids = pages.map((_, i) => `${pageObj(i)} 0 R`).join(" ");
  object(2, () => text(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`));
  pages.forEach((p, i) => {
    const scale = PAGE_LONG_SIDE / Math.max(p.width, p.height);
    const w = +(p.width * scale).toFixed(2);
    const h = +(p.height * scale).toFixed(2);
    const n = pageObj(i);
    object(n, () =>
      text(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] ` +
          `/Resources << /XObject << /Im0 ${n + 2} 0 R >> >> /Contents ${n + 1} 0 R >>`,
      ));
    const draw = enc.encode(`q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`);
    object(n + 1, () => {
      text(`<< /Length ${draw.length} >>\nstream\n`);
      push(draw);
      text("\nendstream");
    });
    object(n + 2, () => {
      text(
        `<< /Type /XObject /Subtype /Image /Width ${p.width} /Height ${p.height} ` +
          `/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode ` +
          `/Length ${p.jpeg.length} >>\nstream\n`,
      );
      push(p.jpeg);
      text("\nendstream");
    });
  });
  const count = 3 + pages.length * 3;
  const xref = size;
  text(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let n = 1; n < count; n++) text(`${String(offsets[n]).padStart(10, "0")} 00000 n \n`);
  text(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  const out = new Uint8Array(size);
  let at = 0;
  for (const b of parts) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}
