import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { banners, removeBanner } from "../state/ui.ts";

/** spec §2: error banners, a list of messages each with a remove button. */
export function ErrorBanners() {
  useSignals();
  const list = banners.value;
  if (!list.length) return null;
  return (
    <ul className="banners" aria-label={t("errors.title")} role="alert">
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
