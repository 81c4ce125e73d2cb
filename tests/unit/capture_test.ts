/**
 * The receipt photo's pure parts (spec §5 Upload, photos prepared on the device): Enhance on
 * synthetic pixels (a colour cast goes, faded print gains contrast, no threshold), and the
 * PDF made from several pages (valid: pdf.js opens it; the cross-reference table is exact).
 */
import assert from "node:assert/strict";
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs";
import { curve, enhancePixels } from "../../client/lib/enhance.ts";
import { PAGE_LONG_SIDE, pdfFromJpegs } from "../../client/lib/jpeg_pdf.ts";

/** A faded thermal receipt under warm light: yellow-grey paper, pale brownish print (6%). */
function fadedReceipt(w = 400, h = 300): Uint8ClampedArray {
  const px = new Uint8ClampedArray(w * h * 4);
  let seed = 7;
  for (let i = 0; i < w * h; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const ink = (seed >>> 8) % 100 < 6;
    const n = ((seed >>> 16) % 7) - 3; // sensor noise ±3
    const [r, g, b] = ink ? [150, 138, 100] : [222, 210, 160];
    px.set([r + n, g + n, b + n, 255], i * 4);
  }
  return px;
}

const mean = (px: Uint8ClampedArray, pick: (r: number, g: number, b: number) => boolean) => {
  const sum = [0, 0, 0];
  let n = 0;
  for (let i = 0; i < px.length; i += 4) {
    if (!pick(px[i], px[i + 1], px[i + 2])) continue;
    sum[0] += px[i];
    sum[1] += px[i + 1];
    sum[2] += px[i + 2];
    n++;
  }
  return sum.map((s) => s / n);
};
const spread = (c: number[]) => Math.max(...c) - Math.min(...c);

Deno.test("[capture] Enhance removes a colour cast and raises the contrast of faded print", () => {
  const before = fadedReceipt();
  const paperBefore = mean(before, (r) => r > 190);
  const inkBefore = mean(before, (r) => r < 190);
  const after = new Uint8ClampedArray(before);
  enhancePixels(after);
  // The same pixels, classified before the change.
  const isPaper = (i: number) => before[i] > 190;
  const avg = (paper: boolean) => {
    const s = [0, 0, 0];
    let n = 0;
    for (let i = 0; i < after.length; i += 4) {
      if (isPaper(i) !== paper) continue;
      s[0] += after[i];
      s[1] += after[i + 1];
      s[2] += after[i + 2];
      n++;
    }
    return s.map((x) => x / n);
  };
  const paper = avg(true);
  const ink = avg(false);
  // The paper was 62 levels yellower (R−B); now it is grey within a few levels.
  assert.ok(spread(paperBefore) > 55, `cast before: ${paperBefore}`);
  assert.ok(spread(paper) < 8, `paper after: ${paper}`);
  assert.ok(spread(ink) < 20, `ink after: ${ink}`);
  // Print against paper: at least twice the contrast it had.
  const lum = (c: number[]) => 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
  const contrastBefore = lum(paperBefore) - lum(inkBefore);
  const contrastAfter = lum(paper) - lum(ink);
  assert.ok(contrastAfter > 2 * contrastBefore, `${contrastBefore} → ${contrastAfter}`);
  // Alpha untouched.
  for (let i = 3; i < after.length; i += 4) assert.equal(after[i], 255);
});

Deno.test("[capture] Enhance is never a threshold: no new pure black or white, order kept, grey levels kept", () => {
  // Every grey level and every colour ramp, 0…255 in each channel.
  const w = 256;
  const px = new Uint8ClampedArray(w * 4 * 4);
  for (let v = 0; v < w; v++) {
    px.set([v, v, v, 255], v * 4);
    px.set([v, 128, 255 - v, 255], (w + v) * 4);
    px.set([200, v, 60, 255], (2 * w + v) * 4);
    px.set([v >> 1, v >> 1, v, 255], (3 * w + v) * 4);
  }
  const out = new Uint8ClampedArray(px);
  enhancePixels(out);
  for (let i = 0; i < px.length; i++) {
    if (i % 4 === 3) continue;
    if (px[i] !== 0) assert.notEqual(out[i], 0, `byte ${i}: ${px[i]} became black`);
    if (px[i] !== 255) assert.notEqual(out[i], 255, `byte ${i}: ${px[i]} became white`);
  }
  // The grey ramp stays a ramp: monotone, with most of its levels distinct.
  const grey = Array.from({ length: w }, (_, v) => out[v * 4]);
  for (let v = 1; v < w; v++) assert.ok(grey[v] >= grey[v - 1], `not monotone at ${v}`);
  assert.ok(new Set(grey).size > 150, `only ${new Set(grey).size} grey levels left`);
  // Every curve, whatever its range, keeps 0 and 255 and nothing else there.
  for (const [lo, hi] of [[0, 255], [0, 48], [207, 255], [100, 101], [30, 220]]) {
    const c = curve(lo, hi);
    assert.equal(c[0], 0);
    assert.equal(c[255], 255);
    for (let v = 1; v < 255; v++) {
      assert.ok(c[v] > 0 && c[v] < 255, `curve(${lo}, ${hi})[${v}] = ${c[v]}`);
      assert.ok(c[v] >= c[v - 1]);
    }
  }
});

/** Object offsets as the cross-reference table gives them, each checked to start its object. */
function checkXref(pdf: Uint8Array): number {
  const text = new TextDecoder("latin1").decode(pdf);
  const start = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)?.[1]);
  assert.ok(text.startsWith("xref\n", start), "startxref points at the table");
  const m = /^xref\n0 (\d+)\n/.exec(text.slice(start))!;
  const count = Number(m[1]);
  const rows = text.slice(start + m[0].length).split("\n").slice(0, count);
  for (let n = 1; n < count; n++) {
    assert.equal(rows[n].length, 19, "entries are 20 bytes with their newline");
    const at = Number(rows[n].slice(0, 10));
    assert.ok(text.startsWith(`${n} 0 obj\n`, at), `object ${n} at ${at}`);
  }
  return count;
}

Deno.test("[capture] several pages make one valid PDF: pdf.js opens it with its pages in order, sizes kept", async () => {
  // JPEG-like bytes (SOI … EOI), binary, containing what a naive parser would trip on.
  const jpeg = (n: number) =>
    new Uint8Array([
      0xff,
      0xd8,
      0xff,
      0xe0,
      ...new TextEncoder().encode("endstream"),
      n,
      0xff,
      0xd9,
    ]);
  const pages = [
    { jpeg: jpeg(1), width: 1500, height: 2000 },
    { jpeg: jpeg(2), width: 1500, height: 1800 },
    { jpeg: jpeg(3), width: 2000, height: 1000 },
  ];
  const pdf = pdfFromJpegs(pages);
  assert.equal(new TextDecoder().decode(pdf.slice(0, 8)), "%PDF-1.4");
  assert.equal(checkXref(pdf), 3 + 3 * pages.length);
  const task = pdfjs.getDocument({ data: pdf.slice() });
  try {
    const doc = await task.promise;
    assert.equal(doc.numPages, 3);
    for (let i = 0; i < pages.length; i++) {
      const [, , w, h] = (await doc.getPage(i + 1)).view;
      assert.equal(Math.max(w, h), PAGE_LONG_SIDE);
      assert.ok(Math.abs(w / h - pages[i].width / pages[i].height) < 0.01, `page ${i + 1}`);
    }
  } finally {
    await task.destroy();
  }
  assert.throws(() => pdfFromJpegs([]), /at least one page/);
});
