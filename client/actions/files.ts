import {
  documents as api,
  UPLOAD_PATH,
  type UploadResponse,
} from "../shared/contract/documents.ts";
import { deleteRemote, uploadFile } from "../api/files.ts";
import { call, NetworkError } from "../api/http.ts";
import { t } from "../i18n/index.ts";
import { enqueue, hasPending, kickQueue } from "./replay.ts";
import { appConfig } from "../state/session.ts";
import { askConfirm } from "../state/ui.ts";

// What attaching a receipt and uploading a document share (spec §5 Upload, §8
// unsupported type alert): the extension and content checks before any byte is sent, the
// photo made smaller on the device, the upload with its percent, the local or remote delete.

/** The extension of a file name, lowercase, without its dot ('' when none). */
export function extensionOf(name: string): string {
  const i = name.lastIndexOf(".");
  return i < 0 ? "" : name.slice(i + 1).toLowerCase();
}

/** spec §5: the file chooser accepts the extensions the server supplied at initialisation. */
export function acceptList(): string {
  return appConfig.value.extensions.map((e) => `.${e}`).join(",");
}

/** spec §8: the alert 'file type not supported' followed by the allowed extensions. */
function unsupportedAlert(allowed: string[]): void {
  askConfirm({
    message: `${t("doc.unsupportedType")} ${allowed.join(", ")}`,
    showNo: false,
    yesLabel: t("common.ok"),
    onYes: () => {},
  });
}

function base64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/**
 * spec §5 Upload: the server is asked whether the extension is allowed (extension 'OK'), then
 * whether the first bytes are what the name says (a renamed program is refused before 10 MB
 * of mobile data are spent). False, after the alert, when the file may not be sent; the
 * caller then clears its input. Offline, the extensions of initialisation decide.
 */
export async function checkFile(file: File): Promise<boolean> {
  const ext = extensionOf(file.name);
  try {
    const r = await call(api.checkUpload, { query: { extension: ext } });
    if (r.extension !== "OK") {
      unsupportedAlert(r.allowed);
      return false;
    }
    const head = new Uint8Array(await file.slice(0, 64).arrayBuffer());
    const c = await call(api.checkContent, {
      query: { name: file.name.slice(0, 255), head: base64(head), size: String(file.size) },
    });
    if (c.result !== 1) {
      askConfirm({
        message: c.message ?? t("doc.unsupportedType"),
        showNo: false,
        yesLabel: t("common.ok"),
        onYes: () => {},
      });
      return false;
    }
    return true;
  } catch (err) {
    if (!(err instanceof NetworkError)) throw err;
    const allowed = appConfig.value.extensions;
    if (allowed.length && !allowed.includes(ext)) {
      unsupportedAlert(allowed);
      return false;
    }
    return true;
  }
}

/** What is sent for a chosen file: the bytes, their name, the preview. */
export interface Prepared {
  file: Blob;
  name: string;
  preview: Blob | null;
}

/**
 * Makes what is sent: a photo scaled down to 2,000 px JPEG with a 1,024 px preview, a PDF
 * with its first page as the preview (previews are made on the device, spec §9 preview size 1024).
 * The original stays on the device. Failures to make a preview only cost the preview.
 */
async function prepare(file: File): Promise<Prepared> {
  const ext = extensionOf(file.name);
  try {
    if (file.type === "application/pdf" || ext === "pdf") {
      const { previewForPdf } = await import("../lib/image_prep.ts");
      return { file, name: file.name, preview: await previewForPdf(await file.arrayBuffer()) };
    }
    if (file.type.startsWith("image/") || ["jpg", "jpeg", "png"].includes(ext)) {
      const { prepareImage } = await import("../lib/image_prep.ts");
      const p = await prepareImage(file);
      const jpeg = p.file.type === "image/jpeg" && !["jpg", "jpeg"].includes(ext);
      const name = jpeg ? `${file.name.replace(/\.[^.]*$/, "")}.jpg` : file.name;
      return { file: p.file, name, preview: p.preview };
    }
  } catch {
    // sent as it is, without a preview
  }
  return { file, name: file.name, preview: null };
}

/**
 * Sends one checked file to a transaction (receipt or document), reporting its percent, with
 * an idempotency key. Without a network (or behind writes already waiting) the prepared
 * file goes into the offline queue instead and null is returned: it is sent, once, when
 * the network returns (spec §1 offline). `prepared`: already made on the device (a receipt's photo
 * pages, client/actions/capture.ts), sent as it is.
 */
export async function sendFile(
  file: File,
  fields: {
    record: string;
    documenttype: "receipt" | "document";
    secure?: boolean;
    /** What the phone read from the receipt, sent with it (client/actions/reading.ts). */
    read?: string;
  },
  onProgress: (percent: number) => void,
  prepared?: Prepared,
): Promise<UploadResponse | null> {
  const p = prepared ?? await prepare(file);
  const key = crypto.randomUUID();
  const form = {
    record: fields.record,
    documenttype: fields.documenttype,
    documentsecurity: fields.secure ? "1" : "0",
    archive: "false",
    ...(fields.read ? { read: fields.read } : {}),
  };
  const queue = () =>
    enqueue({
      key,
      kind: fields.documenttype,
      target: fields.record,
      label: p.name,
      call: { upload: { path: UPLOAD_PATH, fields: form, name: p.name } },
    }, { file: p.file, preview: p.preview });
  if (hasPending() && await queue()) return null;
  try {
    const r = await uploadFile(UPLOAD_PATH, {
      file: p.file,
      name: p.name,
      preview: p.preview,
      fields: form,
      onProgress,
      idempotencyKey: key,
    });
    kickQueue();
    return r;
  } catch (err) {
    if (err instanceof NetworkError && await queue()) return null;
    throw err;
  }
}

/**
 * spec §7 pwadeletedocument; with canDeleteLocal false (an advanced-security document) the
 * document service deletes it: DELETE {remoteUrl}/proxy?token (spec §8).
 */
export async function deleteDocument(oid: string): Promise<void> {
  const r = await call(api.remove, { query: { record: oid } });
  if (!r.canDeleteLocal && r.remoteUrl && r.remoteToken) {
    await deleteRemote(r.remoteUrl, r.remoteToken);
  }
}
