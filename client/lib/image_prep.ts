/**
 * Photos made smaller on the device before upload (spec §5 Upload): a 4 MB phone photo
 * should not cost 4 MB of mobile data. The long side is cut to 2,000 px and the result re-encoded
 * as JPEG; a preview of at most 1,024 px goes with it (spec §9: preview size 1024). The caller
 * keeps the original. No network here.
 */
import { enhancePixels } from "./enhance.ts";
import { renderFirstPage } from "./pdf.ts";
import { fit } from "../shared/image_size.ts";

/** Long side of the uploaded image at most, px. */
export const MAX_SIDE = 2000;
/** Long side of the preview at most, px (spec §9). */
export const PREVIEW_SIDE = 1024;
/** JPEG quality: photos of receipts stay legible, at roughly a tenth of a camera's bytes. */
export const JPEG_QUALITY = 0.85;
/** A JPEG or PNG within MAX_SIDE and at most this size is sent as it is. */
export const SMALL_BYTES = 1_500_000;

export interface PreparedImage {
  /** What to upload: the original when already small, else a JPEG. */
  file: Blob;
  /** JPEG, long side ≤ 1024 px; null if the browser could not encode one. */
  preview: Blob | null;
  /** Size of `file` in px, upright (EXIF orientation applied). */
  width: number;
  height: number;
}

type Source = ImageBitmap | HTMLImageElement | OffscreenCanvas | HTMLCanvasElement;
type Ctx = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/**
 * Scales `file` down for upload. Orientation comes from EXIF (a sideways phone photo is
 * made upright); images are never scaled up. Rejects when the browser cannot decode it.
 */
export async function prepareImage(file: Blob): Promise<PreparedImage> {
  const { image, width, height, close } = await decode(file);
  try {
    const kind = await sniff(file);
    const keep = kind !== null && Math.max(width, height) <= MAX_SIDE &&
      file.size <= SMALL_BYTES;
    const out = keep ? { width, height } : fit(width, height, MAX_SIDE);
    const sent = keep ? file : await encode(image, out.width, out.height);
    const small = fit(width, height, PREVIEW_SIDE);
    const preview = await encode(image, small.width, small.height).catch(() => null);
    return { file: sent, preview, width: out.width, height: out.height };
  } finally {
    close();
  }
}

/** One variant of a receipt page: the JPEG to send and its preview. */
export interface PageVariant {
  file: Blob;
  preview: Blob | null;
  width: number;
  height: number;
}

/**
 * A receipt page from the camera (spec §5 Upload; "Take photo"): upright, long side cut to
 * MAX_SIDE, JPEG — `plain` as shot, and with `enhance` also `enhanced` (colour cast removed,
 * faded print darkened: client/lib/enhance.ts), so the person can undo Enhance before
 * sending without a second decode. Always re-encoded (a page of a PDF must be a JPEG).
 */
export async function preparePage(
  file: Blob,
  opts: { enhance: boolean },
): Promise<{ plain: PageVariant; enhanced: PageVariant | null }> {
  const { image, width, height, close } = await decode(file);
  try {
    const out = fit(width, height, MAX_SIDE);
    const small = fit(width, height, PREVIEW_SIDE);
    const canvas = makeCanvas(out.width, out.height);
    const ctx = canvas.getContext("2d", { willReadFrequently: true }) as Ctx | null;
    draw(ctx, image, out.width, out.height);
    const variant = async (): Promise<PageVariant> => ({
      file: await toJpeg(canvas),
      preview: await encode(canvas, small.width, small.height).catch(() => null),
      ...out,
    });
    const plain = await variant();
    if (!opts.enhance) return { plain, enhanced: null };
    const pixels = ctx!.getImageData(0, 0, out.width, out.height);
    enhancePixels(pixels.data);
    ctx!.putImageData(pixels, 0, 0);
    return { plain, enhanced: await variant() };
  } finally {
    close();
  }
}

/** The preview of a PDF: its first page as a JPEG, long side 1024 px. Loads pdf.js. */
export function previewForPdf(data: ArrayBuffer | Uint8Array): Promise<Blob> {
  return renderFirstPage(data, PREVIEW_SIDE);
}

/** "jpeg" or "png" by the file's first bytes (its name and type may lie), else null. */
async function sniff(file: Blob): Promise<"jpeg" | "png" | null> {
  const b = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "png";
  return null;
}

/**
 * Decodes upright: createImageBitmap with imageOrientation 'from-image', else an <img>
 * (browsers apply EXIF orientation to images since 2020; CSP allows blob: images).
 */
async function decode(
  file: Blob,
): Promise<{ image: Source; width: number; height: number; close: () => void }> {
  if (typeof createImageBitmap === "function") {
    try {
      const bmp = await createImageBitmap(file, { imageOrientation: "from-image" });
      return { image: bmp, width: bmp.width, height: bmp.height, close: () => bmp.close() };
    } catch {
      // Safari before 15 takes no Blob/options here: the <img> path below.
    }
  }
  const url = URL.createObjectURL(file);
  const img = new Image();
  img.src = url;
  try {
    await img.decode();
  } catch (err) {
    URL.revokeObjectURL(url);
    throw err;
  }
  return {
    image: img,
    width: img.naturalWidth,
    height: img.naturalHeight,
    close: () => URL.revokeObjectURL(url),
  };
}

/** Draws `image` at `width`×`height` on white (JPEG has no transparency) and encodes JPEG. */
async function encode(image: Source, width: number, height: number): Promise<Blob> {
  const canvas = makeCanvas(width, height);
  draw(canvas.getContext("2d") as Ctx | null, image, width, height);
  return await toJpeg(canvas);
}

function makeCanvas(width: number, height: number): OffscreenCanvas | HTMLCanvasElement {
  if (typeof OffscreenCanvas === "function") return new OffscreenCanvas(width, height);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

async function toJpeg(canvas: OffscreenCanvas | HTMLCanvasElement): Promise<Blob> {
  if (!("toBlob" in canvas)) {
    return await canvas.convertToBlob({ type: "image/jpeg", quality: JPEG_QUALITY });
  }
  return await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob(
      (b) => b ? resolve(b) : reject(new Error("the image could not be encoded")),
      "image/jpeg",
      JPEG_QUALITY,
    )
  );
}

function draw(
  ctx: Ctx | null,
  image: Source,
  width: number,
  height: number,
): void {
  if (!ctx) throw new Error("no 2D canvas");
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, width, height);
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(image, 0, 0, width, height);
}
