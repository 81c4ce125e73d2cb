import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { confirmRemoveLocalData } from "../../actions/session.ts";
import { SidePanel } from "../../components/SidePanel.tsx";
import { t } from "../../i18n/index.ts";
import { versionLine } from "../../i18n/release.ts";
import { panel } from "../../state/ui.ts";
import { PushToggle } from "./PushToggle.tsx";
import { LanguageChooser } from "./LanguageChooser.tsx";

/**
 * spec §2 options menu: push toggle, passkey unlock (spec §4, extended), version line, about,
 * remove local data (confirmed).
 */
export function OptionsPanel() {
  useSignals();
  const [about, setAbout] = useState(false);
  return (
    <SidePanel
      open={panel.value === "options"}
      title={t("options.title")}
      onBack={() => (panel.value = null)}
    >
      <ul className="menu-list">
        <PushToggle />
        <LanguageChooser />
        <li className="version-line">{versionLine()}</li>
        <li>
          <button
            type="button"
            className="menu-item"
            aria-expanded={about}
            onClick={() => setAbout(!about)}
          >
            {t("options.about")}
          </button>
          {about ? <p className="about">{t("options.aboutText")}</p> : null}
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
