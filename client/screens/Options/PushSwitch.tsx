import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { disablePush, enablePush, pushEnabled, pushToggleVisible } from "../../actions/push.ts";
import { t, type TranslationKey } from "../../i18n/index.ts";
import { appConfig } from "../../state/session.ts";

/** What the switch says under it: the step under way, then what really happened. */
type Note = "turningOn" | "turningOff" | "on" | "off" | "notOn" | null;

const NOTE_KEYS: Record<Exclude<Note, null>, TranslationKey> = {
  turningOn: "options.pushTurningOn",
  turningOff: "options.pushTurningOff",
  on: "options.pushOn",
  off: "options.pushOff",
  notOn: "options.pushNotOn",
};

/**
 * The push notifications switch (spec §2): shown on Android or iOS with browser push and a
 * server key. A tap answers at once: the switch moves and says "Turning notifications on…"
 * while it subscribes (which may take up to 10 s, spec §9), then what really happened.
 */
export default function PushSwitch() {
  useSignals();
  const [on, setOn] = useState(pushEnabled);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<Note>(null);
  const vapid = appConfig.value.vapidPublicKey;
  if (!pushToggleVisible(false, vapid)) return null;
  const turning = note === "turningOn" || note === "turningOff";
  return (
    <li>
      <label className="toggle">
        <span>{t("options.push")}</span>
        <input
          type="checkbox"
          role="switch"
          // The switch shows the state asked for while it is under way.
          checked={turning ? note === "turningOn" : on}
          disabled={busy}
          aria-busy={busy}
          aria-describedby="push-note"
          onChange={async (e) => {
            const want = (e.target as HTMLInputElement).checked;
            setBusy(true);
            setNote(want ? "turningOn" : "turningOff");
            try {
              if (want) {
                const done = await enablePush(vapid!);
                setOn(done);
                setNote(done ? "on" : "notOn");
              } else {
                await disablePush();
                setOn(false);
                setNote("off");
              }
            } finally {
              setBusy(false);
            }
          }}
        />
      </label>
      <p className="about push-note" id="push-note" role="status">
        {turning ? <span className="spinner small" aria-hidden="true" /> : null}
        {note ? t(NOTE_KEYS[note]) : ""}
      </p>
    </li>
  );
}
