import { useEffect, useRef, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { Icon } from "./Icon.tsx";

/** spec §9: a typed digit is hidden again after 0.4 s; a failure shakes for 0.5 s. */
export const DIGIT_HIDE_MS = 400;
export const SHAKE_MS = 500;

export interface PinPadProps {
  /** Digits to collect (5 for a code, 6 for a PIN). */
  length: number;
  /** Accessible label of the entry, e.g. 'Enter your PIN'. */
  label: string;
  /** Changes (increments) when the parent wants a shake and a cleared entry. */
  shake: number;
  disabled?: boolean;
  /** Called with the full entry whenever it changes. */
  onChange: (value: string) => void;
  /** Renders the action (connect / save) once the entry is complete. */
  action?: (value: string) => React.ReactNode;
}

/**
 * spec §2 PIN pad: keys 0-9, clear and backspace; 4 hidden digits, plus a 5th and 6th when
 * present. The physical keyboard works too (digits, Backspace, Escape, Enter).
 */
export function PinPad({ length, label, shake, disabled, onChange, action }: PinPadProps) {
  useSignals();
  const [value, setValue] = useState("");
  const [visible, setVisible] = useState(-1);
  const [shaking, setShaking] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const first = useRef(true);

  const update = (v: string) => {
    setValue(v);
    onChange(v);
  };

  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    setShaking(true);
    update("");
    const id = setTimeout(() => setShaking(false), SHAKE_MS);
    return () => clearTimeout(id);
  }, [shake]);

  const press = (d: string) => {
    if (disabled || value.length >= length) return;
    const v = value + d;
    update(v);
    setVisible(v.length - 1);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setVisible(-1), DIGIT_HIDE_MS);
  };
  const back = () => !disabled && update(value.slice(0, -1));
  const clear = () => !disabled && update("");

  const latest = useRef({ press, back, clear });
  latest.current = { press, back, clear };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
      if (/^\d$/.test(e.key)) latest.current.press(e.key);
      else if (e.key === "Backspace") latest.current.back();
      else if (e.key === "Escape") latest.current.clear();
    };
    addEventListener("keydown", onKey);
    return () => {
      removeEventListener("keydown", onKey);
      clearTimeout(timer.current);
    };
  }, []);

  const boxes = Math.max(4, length);
  const keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
  return (
    <div className={`pinpad${shaking ? " shake" : ""}`}>
      <div
        className="pin-boxes"
        role="status"
        aria-label={`${label}: ${t("pinpad.entered", { count: value.length, length })}`}
      >
        {Array.from(
          { length: boxes },
          (_, i) => (
            <span
              key={i}
              className={`pin-box${i < value.length ? " filled" : ""}${
                i >= length ? " unused" : ""
              }`}
            >
              {i < value.length ? (i === visible ? value[i] : "•") : ""}
            </span>
          ),
        )}
      </div>
      <div className="pin-action">{action && value.length === length ? action(value) : null}</div>
      <div className="pin-keys">
        {keys.map((k) => (
          <button
            type="button"
            key={k}
            className="pin-key"
            disabled={disabled}
            onClick={() => press(k)}
          >
            {k}
          </button>
        ))}
        <button
          type="button"
          className="pin-key small"
          aria-label={t("pinpad.clear")}
          disabled={disabled}
          onClick={clear}
        >
          C
        </button>
        <button type="button" className="pin-key" disabled={disabled} onClick={() => press("0")}>
          0
        </button>
        <button
          type="button"
          className="pin-key small"
          aria-label={t("pinpad.backspace")}
          disabled={disabled}
          onClick={back}
        >
          <Icon name="backspace" />
        </button>
      </div>
    </div>
  );
}
