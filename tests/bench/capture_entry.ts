// Bundled by the photo benchmark (tests/bench/capture.ts) and injected into a blank page:
// times the app's own photo preparation on a camera-sized JPEG made in the page.
import { prepareImage, preparePage } from "../../client/lib/image_prep.ts";

/** A 12 MP "photo of a receipt": warm paper, pale print, light and sensor noise. */
async function photo(width: number, height: number): Promise<Blob> {
  const c = new OffscreenCanvas(width, height);
  const ctx = c.getContext("2d")!;
  const g = ctx.createLinearGradient(0, 0, width, height);
  g.addColorStop(0, "rgb(226, 212, 166)");
  g.addColorStop(1, "rgb(196, 182, 140)");
  ctx.fillStyle = g;
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = "rgb(150, 138, 104)";
  ctx.font = `${Math.round(height / 45)}px monospace`;
  for (let y = height / 12; y < height * 0.92; y += height / 30) {
    ctx.fillText("2 x ESPRESSO          6.40   TVA 10%  0.58", width / 10, y);
  }
  // Sensor noise, so the JPEG weighs what a phone's does (~3–4 MB).
  const img = ctx.getImageData(0, 0, width, height);
  let seed = 1;
  for (let i = 0; i < img.data.length; i += 4) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const n = ((seed >>> 16) % 25) - 12;
    img.data[i] += n;
    img.data[i + 1] += n;
    img.data[i + 2] += n;
  }
  ctx.putImageData(img, 0, 0);
  return await c.convertToBlob({ type: "image/jpeg", quality: 0.92 });
}

(globalThis as unknown as { qcCaptureBench: unknown }).qcCaptureBench = async (runs: number) => {
  const input = await photo(4000, 3000);
  const out = {
    input: input.size,
    today: { times: [] as number[], bytes: 0 },
    plain: { times: [] as number[], bytes: 0 },
    enhanced: { times: [] as number[], bytes: 0 },
  };
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    const a = await prepareImage(input);
    out.today.times.push(performance.now() - t0);
    out.today.bytes = a.file.size;
    t0 = performance.now();
    const b = await preparePage(input, { enhance: false });
    out.plain.times.push(performance.now() - t0);
    out.plain.bytes = b.plain.file.size;
    t0 = performance.now();
    const c = await preparePage(input, { enhance: true });
    out.enhanced.times.push(performance.now() - t0);
    out.enhanced.bytes = c.enhanced!.file.size;
  }
  return out;
};
