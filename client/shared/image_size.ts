/** Image sizes, the same on the phone and on the server. Pure. */

/** `width`×`height` scaled so the long side is at most `max` (never up), whole pixels. */
export function fit(width: number, height: number, max: number): { width: number; height: number } {
  const scale = Math.min(1, max / Math.max(width, height, 1));
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}
