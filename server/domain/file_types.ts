// What an uploaded file is (spec §5 Upload, §7 pwacheckupload and
// pwacheckdocumentcontent): the name's extension must be one the organisation accepts, and
// the first bytes must say the same thing the extension says. Only types we can recognise by
// their magic bytes are accepted at all (images and PDFs), so a renamed executable is refused
// whatever the organisation's list holds.

export type FileType = "application/pdf" | "image/png" | "image/jpeg";

/** Extensions we can check, and the type each must contain. */
export const EXTENSION_TYPES: Readonly<Record<string, FileType>> = {
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
};

/** Bytes the checks look at (pwacheckdocumentcontent sends at most this many). */
export const HEAD_BYTES = 64;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The type the first bytes announce, or null for anything else. */
export function sniff(head: Uint8Array): FileType | null {
  const starts = (sig: number[]) => sig.every((b, i) => head[i] === b);
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return "application/pdf"; // %PDF-
  if (starts(PNG_SIGNATURE)) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  return null;
}

/** 'Receipt.PDF' → 'pdf'; '.jpg' → 'jpg'; no extension → ''. */
export function extensionOf(nameOrExtension: string): string {
  const s = nameOrExtension.trim().toLowerCase();
  const dot = s.lastIndexOf(".");
  return dot < 0 ? s.includes("/") ? "" : s : s.slice(dot + 1);
}

/** The organisation's accepted extensions that we can check (all of them if it lists none). */
export function allowedExtensions(accepted: readonly string[] | undefined): string[] {
  const known = (accepted ?? []).map((e) => extensionOf(e)).filter((e) => e in EXTENSION_TYPES);
  return known.length ? [...new Set(known)] : Object.keys(EXTENSION_TYPES);
}

export type FileCheck =
  | { ok: true; mimeType: FileType }
  | { ok: false; reason: "unsupported_type" | "bad_content" };

/** A file name and its first bytes, against the allowed extensions. */
export function checkFile(name: string, head: Uint8Array, allowed: readonly string[]): FileCheck {
  const ext = extensionOf(name);
  if (!name.includes(".") || !allowed.includes(ext)) {
    return { ok: false, reason: "unsupported_type" };
  }
  const type = sniff(head);
  if (!type || EXTENSION_TYPES[ext] !== type) return { ok: false, reason: "bad_content" };
  return { ok: true, mimeType: type };
}

/** Width and height of a PNG or baseline/progressive JPEG, or null if they cannot be read. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | null {
  const type = sniff(bytes);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === "image/png") {
    if (bytes.length < 24) return null;
    return { width: dv.getUint32(16), height: dv.getUint32(20) };
  }
  if (type !== "image/jpeg") return null;
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    const len = dv.getUint16(i + 2);
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame's size.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { width: dv.getUint16(i + 7), height: dv.getUint16(i + 5) };
    }
    i += 2 + len;
  }
  return null;
}
