import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../../i18n/index.ts";
import { setTimeZoneMode, timeZoneMode } from "../../i18n/display.ts";

/**
 * Options: times in UTC as spec §9 has them ('MM/dd HH:mm', UTC), instead of the device's own
 * time zone (the default). The Transactions tab's groups follow the same zone.
 */
export default function TimeZoneSwitch() {
  useSignals();
  return (
    <li>
      <label className="toggle">
        <span>{t("intl.timesUtc")}</span>
        <input
          type="checkbox"
          role="switch"
          checked={timeZoneMode.value === "utc"}
          onChange={(e) =>
            setTimeZoneMode((e.target as HTMLInputElement).checked ? "utc" : "device")}
        />
      </label>
    </li>
  );
}
