import { useSignals } from "@preact/signals-react/runtime";
import { logout } from "../../actions/session.ts";
import { SidePanel } from "../../components/SidePanel.tsx";
import { t } from "../../i18n/index.ts";
import { displayName, supportUrl } from "../../state/session.ts";
import { optionsFromHome, panel } from "../../state/ui.ts";
import { activeTab } from "../Main/MainScreen.tsx";

/** spec §2 main menu (mode switch and 3-D Secure settings arrive with their issues). */
export function MainMenuPanel() {
  useSignals();
  return (
    <SidePanel
      open={panel.value === "menu"}
      title={t("menu.title")}
      onBack={() => (panel.value = null)}
    >
      <p className="menu-user">{displayName.value}</p>
      <ul className="menu-list">
        {supportUrl.value
          ? (
            <li>
              <button
                type="button"
                className="menu-item"
                onClick={() => {
                  activeTab.value = "support";
                  panel.value = null;
                }}
              >
                {t("menu.support")}
              </button>
            </li>
          )
          : null}
        <li>
          <button
            type="button"
            className="menu-item"
            onClick={() => {
              optionsFromHome.value = false;
              panel.value = "options";
            }}
          >
            {t("menu.options")}
          </button>
        </li>
        <li>
          <button type="button" className="menu-item" onClick={logout}>{t("menu.logout")}</button>
        </li>
      </ul>
    </SidePanel>
  );
}
