// A minimal, valid PDF writer (ISO 32000-1: catalog, one page, Helvetica, content stream,
// cross-reference table): the demo's receipts (demo_receipts.ts) and the tests' files
// (tests/fixtures/files.ts) are real PDFs that pdf.js opens, without a PDF library.

const enc = new TextEncoder();

/** The bytes of `parts`, one after the other. */
export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** PDF text of a string: ASCII only, with its delimiters escaped. */
export function pdfText(s: string): string {
  return s.normalize("NFD").replace(/[^\x20-\x7e]/g, "").replace(/[()\\]/g, (c) => `\\${c}`);
}

/**
 * One A6 page drawing `content` (PDF graphics operators; font /F1 is Helvetica), plus any
 * `extra` objects (unreferenced: e.g. padding to reach a file size).
 */
export function onePagePdf(content: string, extra: Uint8Array[] = []): Uint8Array {
  const objects: (string | Uint8Array)[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] /Contents 4 0 R " +
    "/Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ...extra,
  ];
  const parts: Uint8Array[] = [enc.encode("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")];
  let at = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(at);
    const body = typeof o === "string" ? enc.encode(o) : o;
    const p = concat([enc.encode(`${i + 1} 0 obj\n`), body, enc.encode("\nendobj\n")]);
    parts.push(p);
    at += p.length;
  });
  const xref = [
    "xref",
    `0 ${objects.length + 1}`,
    "0000000000 65535 f ",
    ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n `),
    "trailer",
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    "startxref",
    String(at),
    "%%EOF\n",
  ].join("\n");
  parts.push(enc.encode(xref));
  return concat(parts);
}

/** A merchant's receipt: a coloured band with the merchant's name, then lines of text. */
export function receiptPdf(title: string, lines: string[]): Uint8Array {
  const text = lines.map((l, i) => `BT /F1 11 Tf 24 ${300 - i * 18} Td (${pdfText(l)}) Tj ET`);
  return onePagePdf(
    [
      "0.15 0.35 0.55 rg 0 360 298 60 re f",
      `1 1 1 rg BT /F1 18 Tf 24 382 Td (${pdfText(title)}) Tj ET`,
      "0 0 0 rg",
      ...text,
    ].join(" "),
  );
}
