/**
 * The second look's plan (client/shared/ocr_config.ts): where the paper is in a photo, and what
 * is drawn for the date when the first reading found none.
 */
import assert from "node:assert/strict";
import { greyOf, ocrSize, paperBox, secondLook } from "../../client/shared/ocr_config.ts";

/** A grey image `w`×`h` of `fill`, with rectangles [x, y, w, h, grey] painted over it. */
function image(w: number, h: number, fill: number, rects: number[][]): Uint8Array {
  const g = new Uint8Array(w * h).fill(fill);
  for (const [rx, ry, rw, rh, v] of rects) {
    for (let y = ry; y < ry + rh; y++) for (let x = rx; x < rx + rw; x++) g[y * w + x] = v;
  }
  return g;
}

Deno.test("[receipt look] the paper on a table between black bars is found; a scan is all paper", () => {
  // A landscape photo: black bars, a wooden table (grey 190), the receipt (245) with print.
  const print = Array.from({ length: 20 }, (_, i) => [90, 30 + i * 6, 40, 2, 30]);
  const photo = image(240, 180, 190, [[0, 0, 40, 180, 10], [200, 0, 40, 180, 10], [
    80,
    12,
    70,
    150,
    245,
  ], ...print]);
  const box = paperBox(photo, 240, 180)!;
  assert.ok(box, "paper found");
  // The receipt's edges, give or take the margin kept around it.
  assert.ok(
    Math.abs(box.x - 80) <= 6 && Math.abs(box.x + box.width - 150) <= 6,
    JSON.stringify(box),
  );
  assert.ok(
    Math.abs(box.y - 12) <= 6 && Math.abs(box.y + box.height - 162) <= 6,
    JSON.stringify(box),
  );
  // A flatbed scan: paper everywhere, print on it; and an image with nothing light.
  const scan = image(
    120,
    240,
    250,
    Array.from({ length: 30 }, (_, i) => [10, 5 + i * 8, 90, 3, 20]),
  );
  assert.equal(paperBox(scan, 120, 240), null);
  assert.equal(paperBox(image(50, 50, 0, []), 50, 50), null);
  // Bad input: a size that does not match the pixels.
  assert.equal(paperBox(new Uint8Array(10), 50, 50), null);
});

Deno.test("[receipt look] the second look draws the paper's own pixels at twice the reading size", () => {
  // A 12 MP photo (4000×3000) looked at 240 wide: read at 2000, so the paper is drawn at its
  // own pixels (twice 2000/4000), capped at 3000 on the long side.
  const looked = ocrSize(4000, 3000, 240);
  const plan = secondLook(4000, 3000, { x: 80, y: 10, width: 76, height: 160 }, looked)!;
  assert.deepEqual(plan.from, { x: 1333, y: 167, width: 1267, height: 2667 });
  assert.deepEqual(plan.to, { width: 1267, height: 2667 });
  // A small photo (1200×893, read at its size): drawn twice as large.
  const small = secondLook(
    1200,
    893,
    { x: 80, y: 10, width: 76, height: 124 },
    ocrSize(1200, 893, 240),
  );
  assert.deepEqual(small!.to, { width: 760, height: 1238 });
  // A tall paper is capped.
  const tall = secondLook(
    1000,
    2000,
    { x: 0, y: 0, width: 100, height: 230 },
    ocrSize(1000, 2000, 240),
  );
  assert.equal(Math.max(tall!.to.width, tall!.to.height), 3000);
  // No paper found: no second look.
  assert.equal(secondLook(1000, 1000, null, ocrSize(1000, 1000, 240)), null);
});

Deno.test("[receipt look] grey levels of RGBA pixels", () => {
  assert.deepEqual(
    [...greyOf(new Uint8ClampedArray([255, 255, 255, 255, 0, 0, 0, 255, 255, 0, 0, 255]))],
    [255, 0, 76],
  );
});
