import type { ReactNode } from "react";

/**
 * An on/off choice drawn as a switch (role="switch"), the whole row a 44 px target for one
 * thumb, instead of a 13 px native checkbox. Still a checkbox underneath: the keyboard's
 * Space, the label's tap and the form's semantics stay the browser's own. `children` is
 * the label (wrapped in a span: what tests and screen readers name it by).
 */
export function Switch(
  props: {
    checked: boolean;
    onChange: (on: boolean) => void;
    children: ReactNode;
    className?: string;
    disabled?: boolean;
  },
) {
  return (
    <label className={`switch-row${props.className ? ` ${props.className}` : ""}`}>
      <span className="switch-label">{props.children}</span>
      <input
        type="checkbox"
        role="switch"
        className="switch"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
    </label>
  );
}
