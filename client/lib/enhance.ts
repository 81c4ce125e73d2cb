/**
 * "Enhance" for photos of receipts (spec §5 Upload: photos prepared on the device): faded
 * thermal paper under shop lights comes out grey-yellow with pale ink. Each colour channel
 * is stretched between its own dark and bright percentiles (a white-patch balance: the
 * paper's colour becomes neutral, so a cast goes) along a gentle S-curve darkened a little in
 * the mid-tones, which brings faded print back without amplifying the paper's noise. A smooth, monotone curve per channel — never a black/white
 * threshold: every grey level keeps its order, and no pixel that was not already pure black
 * or white becomes so. Pure: RGBA bytes in, changed in place; no DOM.
 */

/** Where "ink" and "paper" are read: the 1st and 95th percentiles (paper is most of a receipt). */
export const DARK_PERCENTILE = 0.01;
export const BRIGHT_PERCENTILE = 0.95;
/** Where ink and paper land (not 0 and 255: the tails keep their detail). */
export const OUT_DARK = 16;
export const OUT_BRIGHT = 240;
/** A channel narrower than this is widened below its bright end first: the gain stays ≤ ~2.3×, so a sheet's noise is not blown up (nor a blank page's). */
export const MIN_RANGE = 96;
/** Mid-tone curve: > 1 darkens pale print. */
export const GAMMA = 1.15;
/**
 * Share of an S-curve (smoothstep) in the stretch: steep in the mid-tones (faded print's
 * edges), flat near ink and paper, so the sensor noise of a plain sheet is not amplified
 * with it (that noise is what makes a JPEG heavy).
 */
export const S_SHARE = 0.7;
/** Pixels sampled for the histograms at most (a 12 MP photo needs no more to find them). */
const SAMPLES = 262_144;

/** The dark and bright percentile of each of R, G, B, sampled. */
export function channelRanges(rgba: ArrayLike<number>): Array<[number, number]> {
  const pixels = Math.floor(rgba.length / 4);
  const step = Math.max(1, Math.floor(pixels / SAMPLES));
  const hist = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  let n = 0;
  for (let p = 0; p < pixels; p += step, n++) {
    const i = p * 4;
    hist[0][rgba[i]]++;
    hist[1][rgba[i + 1]]++;
    hist[2][rgba[i + 2]]++;
  }
  return hist.map((h) => {
    const at = (q: number) => {
      const want = q * n;
      let sum = 0;
      for (let v = 0; v < 256; v++) {
        sum += h[v];
        if (sum > want) return v;
      }
      return 255;
    };
    return [at(DARK_PERCENTILE), at(BRIGHT_PERCENTILE)] as [number, number];
  });
}

/**
 * The ranges to stretch: each channel's, widened below its bright end by one factor for all
 * three so that the narrowest spans MIN_RANGE. One factor keeps the balance: ink and paper
 * still land on the same level in every channel (a cast goes), and the gain stays bounded.
 */
export function stretchRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const narrowest = Math.max(1, Math.min(...ranges.map(([lo, hi]) => hi - lo)));
  const k = Math.max(1, MIN_RANGE / narrowest);
  return ranges.map(([lo, hi]) => {
    const top = Math.max(hi, 1);
    return [top - k * Math.max(1, top - lo), top] as [number, number];
  });
}

/**
 * The 256-entry curve of one channel: [0, lo] → [0, OUT_DARK], [lo, hi] → [OUT_DARK,
 * OUT_BRIGHT] with the mid-tone gamma, [hi, 255] → [OUT_BRIGHT, 255]. Monotone; 0 and 255
 * map to themselves and nothing else reaches them.
 */
export function curve(lo: number, hi: number): Uint8Array {
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    let y: number;
    if (v <= lo) y = lo <= 0 ? OUT_DARK : (OUT_DARK * v) / lo;
    else if (v >= hi) {
      y = hi === 255 ? OUT_BRIGHT : OUT_BRIGHT + ((255 - OUT_BRIGHT) * (v - hi)) / (255 - hi);
    } else y = OUT_DARK + (OUT_BRIGHT - OUT_DARK) * Math.pow((v - lo) / (hi - lo), GAMMA);
    lut[v] = v === 0 ? 0 : v === 255 ? 255 : Math.min(254, Math.max(1, Math.round(y)));
  }
  return lut;
}

/** Enhances RGBA pixels in place (alpha untouched). */
export function enhancePixels(rgba: Uint8ClampedArray | Uint8Array): void {
  const [r, g, b] = stretchRanges(channelRanges(rgba)).map(([lo, hi]) => curve(lo, hi));
  for (let i = 0; i < rgba.length; i += 4) {
    rgba[i] = r[rgba[i]];
    rgba[i + 1] = g[rgba[i + 1]];
    rgba[i + 2] = b[rgba[i + 2]];
  }
}
