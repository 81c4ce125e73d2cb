/**
 * Set-up shared by the receipt tests and benches: a receipt drawn as a till prints it, and the
 * transaction row opened by its text.
 */
import type { Browser } from "puppeteer-core";

/**
 * A receipt as a till prints it (monospace lines on white), drawn in a page of its own and kept
 * as an image file: PNG, or JPEG at `scale` device pixels per CSS pixel and a page of `width`
 * × `height` (a phone photo: 1000 × 750 at 4 is 4000 × 3000).
 */
export async function receiptImage(
  browser: Browser,
  lines: string[],
  file: string,
  opts: { scale?: number; type?: "png" | "jpeg"; width?: number; height?: number } = {},
): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.setViewport({
      width: opts.width ?? 480,
      height: opts.height ?? 200 + lines.length * 30,
      deviceScaleFactor: opts.scale ?? 1,
    });
    const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
    await page.setContent(
      `<body style="margin:0;padding:24px;background:#fff;color:#111;font:20px/1.4 'DejaVu Sans Mono',monospace">${
        lines.map((l) => `<div style="white-space:pre">${esc(l)}</div>`).join("")
      }</body>`,
    );
    const type = opts.type ?? "png";
    await Deno.writeFile(
      file,
      await page.screenshot({
        type,
        fullPage: !opts.height,
        ...(type === "jpeg" ? { quality: 90 } : {}),
      }),
    );
  } finally {
    await page.close();
  }
}

/** Today as a French till prints it (dd/mm/yyyy). */
export function tillDate(d = new Date()): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getDate())}/${two(d.getMonth() + 1)}/${d.getFullYear()}`;
}
