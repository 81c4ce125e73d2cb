import { useEffect, useRef, useState } from "react";

/** Rows rendered at first; more follow as the list is scrolled (2,000 rows stay fast). */
export const FIRST_ROWS = 60;
const MORE_ROWS = 200;
/** A list row is at least this tall (.request-row min-height in the styles). */
const ROW_MIN_PX = 64;

/** Rows that fill the window (and a little more): what the first paint must show. */
export function screenfulRows(): number {
  const h = typeof innerHeight === "number" && innerHeight > 0 ? innerHeight : 1024;
  return Math.min(FIRST_ROWS, Math.ceil(h / ROW_MIN_PX) + 2);
}

/** Runs `fn` once the browser has painted what is on screen now. */
function afterPaint(fn: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (typeof requestAnimationFrame === "undefined") {
    timer = setTimeout(fn);
    return () => clearTimeout(timer);
  }
  const frame = requestAnimationFrame(() => (timer = setTimeout(fn)));
  return () => (cancelAnimationFrame(frame), clearTimeout(timer));
}

/**
 * Progressive rendering of a long list: the first rows at once, more when a sentinel after
 * them scrolls into view. Back to the first rows whenever `resetOn` changes (sub-filter,
 * filters). Put `sentinel` on an element after the rendered rows.
 *
 * `screenfulFirst`: the first paint holds only the rows that fill the window; the rest of
 * the first rows follow right after that paint (so find-in-page and screen readers get the
 * same {@link FIRST_ROWS} rows a moment later).
 */
export function useProgressive(
  total: number,
  resetOn: unknown[],
  opts: { screenfulFirst?: boolean } = {},
) {
  const first = () => (opts.screenfulFirst ? screenfulRows() : FIRST_ROWS);
  const [limit, setLimit] = useState(first);
  const sentinel = useRef<HTMLLIElement>(null);
  useEffect(() => setLimit(first()), resetOn);
  useEffect(() => {
    if (limit >= FIRST_ROWS || total <= limit) return;
    return afterPaint(() => setLimit((n) => Math.max(n, FIRST_ROWS)));
  }, [limit, total]);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || limit < FIRST_ROWS || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setLimit((n) => n + MORE_ROWS);
    });
    io.observe(el);
    return () => io.disconnect();
  }, [limit, total]);
  return { limit, sentinel };
}
