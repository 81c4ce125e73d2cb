import { useEffect, useRef } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { transactionAttention } from "../state/session.ts";
import { bannerFix, banners, bannerText, removeBanner } from "../state/ui.ts";

/**
 * spec §2: error banners, a list of messages each with a remove button. They sit in the
 * thumb zone; their height is published as --banner-h so panels and their action buttons
 * (approve, save…) move up instead of being covered. A banner that names a fix offers it:
 * the spec §5 block "transactions that still have no receipts" opens the first transaction
 * concerned (drawn by the main screen's chunk: `bannerFix`), and goes away once no
 * transaction needs a receipt. A banner to know rather than an error (`tone: "info"`) is drawn
 * calm, not in the error colour; being offline is not a banner at all (OfflineStrip).
 */
export function ErrorBanners() {
  useSignals();
  const noneOverdue = transactionAttention.value === 0;
  const list = banners.value.filter((b) => !(b.fix === "receipt" && noneOverdue));
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!noneOverdue) return;
    banners.value.filter((b) => b.fix === "receipt").forEach((b) => removeBanner(b.id));
  }, [noneOverdue]);
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
  // The live region wraps the list: role=alert on the <ul> itself would strip its list
  // semantics (WCAG 1.3.1).
  return (
    <div ref={ref} className="banners" role="alert">
      <ul className="banner-list" aria-label={t("errors.title")}>
        {list.map((b) => (
          <li key={b.id} className={b.tone === "info" ? "banner info" : "banner"}>
            <span>{bannerText(b)}</span>
            {b.fix && bannerFix.value ? bannerFix.value(b.fix) : null}
            <button
              type="button"
              className="icon-button"
              aria-label={t("errors.remove", { message: bannerText(b) })}
              onClick={() => removeBanner(b.id)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
