/** Helpers shared by the build tests (build_test.ts, build_shell_test.ts, build_sw_test.ts). */
import assert from "node:assert/strict";

/** Width and height from a PNG's IHDR. */
export function pngSize(png: Uint8Array): [number, number] {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(png.buffer, png.byteOffset);
  return [view.getUint32(16), view.getUint32(20)];
}
