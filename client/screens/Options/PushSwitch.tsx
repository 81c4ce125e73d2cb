import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { disablePush, enablePush, pushEnabled, pushToggleVisible } from "../../actions/push.ts";
import { t } from "../../i18n/index.ts";
import { appConfig } from "../../state/session.ts";

/**
 * The push notifications switch (spec §2): shown on Android or iOS with browser push and a
 * server key. Busy while subscribing (up to 10 s, spec §9); it shows what really happened.
 */
export default function PushSwitch() {
  useSignals();
  const [on, setOn] = useState(pushEnabled);
  const [busy, setBusy] = useState(false);
  const vapid = appConfig.value.vapidPublicKey;
  if (!pushToggleVisible(false, vapid)) return null;
  return (
    <li>
      <label className="toggle">
        <span>{t("options.push")}</span>
        <input
          type="checkbox"
          role="switch"
          checked={on}
          disabled={busy}
          aria-busy={busy}
          onChange={async (e) => {
            const want = (e.target as HTMLInputElement).checked;
            setBusy(true);
            try {
              if (want) setOn(await enablePush(vapid!));
              else {
                await disablePush();
                setOn(false);
              }
            } finally {
              setBusy(false);
            }
          }}
        />
      </label>
    </li>
  );
}
