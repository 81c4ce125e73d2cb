import { useEffect, useRef } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { banners, removeBanner } from "../state/ui.ts";

/**
 * spec §2: error banners, a list of messages each with a remove button. They sit in the
 * thumb zone; their height is published as --banner-h so panels and their action buttons
 * (approve, save…) move up instead of being covered.
 */
export function ErrorBanners() {
  useSignals();
  const list = banners.value;
  const ref = useRef<HTMLUListElement>(null);
  useEffect(() => {
    const root = document.documentElement.style;
    const el = ref.current;
    if (!el) return void root.removeProperty("--banner-h");
    const set = () => root.setProperty("--banner-h", `${el.offsetHeight}px`);
    set();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(set);
    ro.observe(el);
    return () => ro.disconnect();
  }, [list.length > 0]);
  if (!list.length) return null;
  return (
    <ul ref={ref} className="banners" aria-label={t("errors.title")} role="alert">
      {list.map((b) => (
        <li key={b.id} className="banner">
          <span>{b.message}</span>
          <button
            type="button"
            className="icon-button"
            aria-label={t("errors.remove", { message: b.message })}
            onClick={() => removeBanner(b.id)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
