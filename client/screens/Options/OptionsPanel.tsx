import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { disablePush, enablePush, pushEnabled, pushToggleVisible } from "../../actions/push.ts";
import { confirmRemoveLocalData } from "../../actions/session.ts";
import { SidePanel } from "../../components/SidePanel.tsx";
import { t } from "../../i18n/index.ts";
import { appConfig } from "../../state/session.ts";
import { optionsFromHome, panel, pushBanner } from "../../state/ui.ts";

export const VERSION = "2.25.0211";

/** spec §2 options menu: push toggle, version line, about, remove local data (confirmed). */
export function OptionsPanel() {
  useSignals();
  const [push, setPush] = useState(pushEnabled());
  const [about, setAbout] = useState(false);
  const vapid = appConfig.value.vapidPublicKey;
  return (
    <SidePanel
      open={panel.value === "options"}
      title={t("options.title")}
      onBack={() => (panel.value = null)}
    >
      <ul className="menu-list">
        {pushToggleVisible(optionsFromHome.value, vapid)
          ? (
            <li>
              <label className="toggle">
                <span>{t("options.push")}</span>
                <input
                  type="checkbox"
                  role="switch"
                  checked={push}
                  onChange={async (e) => {
                    const on = (e.target as HTMLInputElement).checked;
                    try {
                      if (on) await enablePush(vapid!);
                      else await disablePush();
                      setPush(on);
                    } catch {
                      pushBanner(t("options.pushFailed"));
                    }
                  }}
                />
              </label>
            </li>
          )
          : null}
        <li className="version-line">
          <span>{t("options.version")}</span>
          <span>{t("app.version", { version: VERSION })}</span>
        </li>
        <li>
          <button
            type="button"
            className="menu-item"
            aria-expanded={about}
            onClick={() => setAbout(!about)}
          >
            {t("options.about")}
          </button>
          {about ? <p className="about">{t("options.aboutText")} {t("options.released")}</p> : null}
        </li>
        <li>
          <button type="button" className="menu-item danger" onClick={confirmRemoveLocalData}>
            {t("options.removeLocal")}
          </button>
        </li>
      </ul>
    </SidePanel>
  );
}
