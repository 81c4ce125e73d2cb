import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { setLanguage } from "../../actions/language.ts";
import { locale, t } from "../../i18n/index.ts";
import { type Language, LANGUAGES } from "../../i18n/language.ts";

/**
 * Options: the app's language (spec §7 pwatranslation), each named in itself. Applied at once; the
 * choice is kept on the device and told to the server (client/actions/language.ts).
 */
export function LanguageChooser() {
  useSignals();
  const [pending, setPending] = useState<Language | null>(null);
  const current = pending ?? locale.value;
  return (
    <li>
      <div id="language-label" className="version-line">{t("options.language")}</div>
      <div className="segmented about" role="radiogroup" aria-labelledby="language-label">
        {LANGUAGES.map((l) => (
          <button
            key={l.code}
            type="button"
            role="radio"
            lang={l.code}
            aria-checked={l.code === current}
            className={l.code === current ? "active" : ""}
            disabled={pending !== null}
            onClick={async () => {
              if (l.code === locale.value) return;
              setPending(l.code);
              try {
                await setLanguage(l.code);
              } finally {
                setPending(null);
              }
            }}
          >
            {l.name}
          </button>
        ))}
      </div>
    </li>
  );
}
