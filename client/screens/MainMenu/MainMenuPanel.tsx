import { useSignals } from "@preact/signals-react/runtime";
import { logout } from "../../actions/session.ts";
import { openSecure } from "../../actions/secure.ts";
import { SidePanel } from "../../components/SidePanel.tsx";
import { t } from "../../i18n/index.ts";
import { displayName, profile, supportUrl } from "../../state/session.ts";
import { closeAllSheets, optionsFromHome, panel } from "../../state/ui.ts";
import { setMode } from "../../actions/approvals.ts";
import { approvalRows, mode } from "../../state/approvals.ts";
import { activeTab } from "../Main/MainScreen.tsx";

/**
 * spec §2 main menu: the mode switch (offered only when approval requests exist, spec §6),
 * 3D secure settings, support, options, logout.
 */
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
        {approvalRows.value.length || mode.value === "approval"
          ? (
            <MenuItem
              label={mode.value === "approval" ? t("mode.toRequest") : t("mode.toApproval")}
              onClick={() => {
                setMode(mode.value === "approval" ? "request" : "approval");
                closeAllSheets();
                panel.value = null;
              }}
            />
          )
          : null}
        <MenuItem
          label={t("menu.secure")}
          onClick={() => {
            panel.value = null;
            openSecure();
          }}
        />
        {profile.value?.finance
          ? <MenuItem label={t("export.menu")} onClick={() => (panel.value = "export")} />
          : null}
        {supportUrl.value
          ? (
            <MenuItem
              label={t("menu.support")}
              onClick={() => {
                activeTab.value = "support";
                panel.value = null;
              }}
            />
          )
          : null}
        <MenuItem
          label={t("menu.options")}
          onClick={() => {
            optionsFromHome.value = false;
            panel.value = "options";
          }}
        />
        <MenuItem label={t("menu.logout")} onClick={logout} />
      </ul>
    </SidePanel>
  );
}

function MenuItem(props: { label: string; onClick: () => void }) {
  return (
    <li>
      <button type="button" className="menu-item" onClick={props.onClick}>{props.label}</button>
    </li>
  );
}
