import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { Icon } from "./Icon.tsx";
import { PanelFooter } from "./PanelFooter.tsx";

export interface MoreAction {
  key: string;
  label: string;
  /** One line saying what it does, under the label. */
  hint?: string;
  /** Destructive (cancel, end): drawn in red; its confirm uses the same verb. */
  danger?: boolean;
  disabled?: boolean;
  onSelect: () => void;
}

/**
 * The detail screens' one sticky action bar: one primary action (the job people come for)
 * and the rest behind "More actions", each with its verb and, where it helps, one line
 * saying what it does. Escape or a tap outside closes the menu; focus returns to its button.
 */
export function ActionBar(props: { primary?: ReactNode; more?: (MoreAction | false)[] }) {
  useSignals();
  const more = (props.more ?? []).filter((a): a is MoreAction => !!a);
  if (!props.primary && !more.length) return null;
  return (
    <PanelFooter>
      <div className="action-bar sticky-action">
        {props.primary}
        {more.length ? <MoreMenu items={more} /> : null}
      </div>
    </PanelFooter>
  );
}

function MoreMenu(props: { items: MoreAction[] }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const key = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.stopPropagation();
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener("pointerdown", away, true);
    document.addEventListener("keydown", key, true);
    box.current?.querySelector<HTMLButtonElement>(".more-item:not(:disabled)")?.focus();
    return () => {
      document.removeEventListener("pointerdown", away, true);
      document.removeEventListener("keydown", key, true);
    };
  }, [open]);
  return (
    <div className="more-menu" ref={box}>
      <button
        ref={toggle}
        type="button"
        className="secondary more-toggle"
        aria-expanded={open}
        aria-controls={id}
        aria-label={t("actions.more")}
        onClick={() => setOpen(!open)}
      >
        <Icon name="more" size={18} /> {t("actions.moreShort")}
      </button>
      {open
        ? (
          <ul id={id} className="more-list" aria-label={t("actions.more")}>
            {props.items.map((a) => (
              <li key={a.key} className="more-entry">
                {
                  /* The hint stands beside the button: the button's name is its visible verb
                    (WCAG 2.5.3), the hint its description. */
                }
                <button
                  type="button"
                  className={`more-item${a.danger ? " danger" : ""}`}
                  disabled={a.disabled}
                  aria-describedby={a.hint ? `${id}-${a.key}` : undefined}
                  onClick={() => {
                    setOpen(false);
                    a.onSelect();
                  }}
                >
                  {a.label}
                </button>
                {a.hint ? <p id={`${id}-${a.key}`} className="more-hint">{a.hint}</p> : null}
              </li>
            ))}
          </ul>
        )
        : null}
    </div>
  );
}
