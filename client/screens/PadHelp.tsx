import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { appConfig } from "../state/session.ts";
import { panel } from "../state/ui.ts";

/** spec §2: PIN pad help text links to the FAQ, to a chat service and to 'send activation email'. */
export function PadHelp() {
  useSignals();
  const { faqUrl, chatUrl } = appConfig.value;
  return (
    <nav className="pad-help" aria-label={t("pinpad.help")}>
      {faqUrl
        ? <a href={faqUrl} target="_blank" rel="noopener noreferrer">{t("pinpad.faq")}</a>
        : null}
      {chatUrl
        ? <a href={chatUrl} target="_blank" rel="noopener noreferrer">{t("pinpad.chat")}</a>
        : null}
      <button type="button" className="link" onClick={() => (panel.value = "lost")}>
        {t("pinpad.sendActivation")}
      </button>
    </nav>
  );
}
