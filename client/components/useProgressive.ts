import { useEffect, useRef, useState } from "react";

/** Rows rendered at first; more follow as the list is scrolled (2,000 rows stay fast). */
export const FIRST_ROWS = 60;
const MORE_ROWS = 200;

/**
 * Progressive rendering of a long list: the first rows at once, more when a sentinel after
 * them scrolls into view. Back to the first rows whenever `resetOn` changes (sub-filter,
 * filters). Put `sentinel` on an element after the rendered rows.
 */
export function useProgressive(total: number, resetOn: unknown[]) {
  const [limit, setLimit] = useState(FIRST_ROWS);
  const sentinel = useRef<HTMLLIElement>(null);
  useEffect(() => setLimit(FIRST_ROWS), resetOn);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setLimit((n) => n + MORE_ROWS);
    });
    io.observe(el);
    return () => io.disconnect();
  }, [limit, total]);
  return { limit, sentinel };
}
