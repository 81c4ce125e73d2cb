import { useSignals } from "@preact/signals-react/runtime";
import { locale, t } from "../../i18n/index.ts";
import { localizedSupport } from "../../i18n/support_link.ts";
import { appConfig, supportUrl } from "../../state/session.ts";

/**
 * spec §2 support tab: embeds the support page — the organisation's, or our own translated
 * one (precached, so it opens offline too) in the language shown. The chat link shows only
 * when the organisation has a chat address (spec §1).
 */
export function SupportTab() {
  useSignals();
  const url = supportUrl.value;
  const chat = appConfig.value.chatUrl;
  return (
    <>
      {chat
        ? (
          <p className="support-chat">
            <a href={chat} target="_blank" rel="noopener noreferrer">{t("pinpad.chat")}</a>
          </p>
        )
        : null}
      {url
        ? (
          <iframe
            className="support-frame"
            title={t("main.support")}
            src={localizedSupport(url, locale.value)}
          />
        )
        : <p className="empty">{t("main.noSupport")}</p>}
    </>
  );
}
