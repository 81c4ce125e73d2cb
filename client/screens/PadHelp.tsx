import { useSignals } from "@preact/signals-react/runtime";
import { locale, t } from "../i18n/index.ts";
import { localizedSupport, ownSupportPage } from "../i18n/support_link.ts";
import { appConfig } from "../state/session.ts";
import { panel } from "../state/ui.ts";

/** spec §2: PIN pad help text links to the FAQ, to a chat service and to 'send activation email'. */
export function PadHelp(props: { lostLabel?: string } = {}) {
  useSignals();
  const { faqUrl, chatUrl } = appConfig.value;
  // spec §1 support: our own support page (precached) when the server names none or is not
  // reachable.
  const faq = localizedSupport(faqUrl ?? ownSupportPage(locale.value), locale.value);
  return (
    <nav className="pad-help" aria-label={t("pinpad.help")}>
      <a href={faq} target="_blank" rel="noopener noreferrer">{t("pinpad.faq")}</a>
      {chatUrl
        ? <a href={chatUrl} target="_blank" rel="noopener noreferrer">{t("pinpad.chat")}</a>
        : null}
      <button type="button" className="link" onClick={() => (panel.value = "lost")}>
        {props.lostLabel ?? t("pinpad.sendActivationAgain")}
      </button>
    </nav>
  );
}
