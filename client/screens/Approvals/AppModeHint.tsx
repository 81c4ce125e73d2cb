import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { hideHint, hintWanted } from "../../actions/app_hint.ts";
import { t } from "../../i18n/index.ts";
import { isIOS } from "../../lib/mode.ts";
import { openSheet } from "../../state/ui.ts";

/** spec §2: in a browser (not app mode) a hint suggests app mode. */
export function AppModeHint() {
  useSignals();
  const [shown, setShown] = useState(hintWanted);
  if (!shown) return null;
  return (
    <div className="app-hint" role="note">
      <p>{t("hint.appMode")}</p>
      <button type="button" className="link" onClick={() => openSheet({ kind: "install" })}>
        {t("hint.how")}
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label={t("hint.hide")}
        onClick={() => {
          hideHint();
          setShown(false);
        }}
      >
        ×
      </button>
    </div>
  );
}

/** spec §2 iOS install instructions (and Android's), the device's own first. */
export function InstallBody() {
  useSignals();
  const ios = (
    <section key="ios" aria-label={t("install.iosTitle")}>
      <h3>{t("install.iosTitle")}</h3>
      <ol className="steps">
        <li>{t("install.ios1")}</li>
        <li>{t("install.ios2")}</li>
        <li>{t("install.ios3")}</li>
      </ol>
    </section>
  );
  const android = (
    <section key="android" aria-label={t("install.androidTitle")}>
      <h3>{t("install.androidTitle")}</h3>
      <ol className="steps">
        <li>{t("install.android1")}</li>
        <li>{t("install.android2")}</li>
      </ol>
    </section>
  );
  const onIOS = typeof navigator !== "undefined" &&
    isIOS(navigator.userAgent, navigator.maxTouchPoints);
  return <div className="install">{onIOS ? [ios, android] : [android, ios]}</div>;
}
