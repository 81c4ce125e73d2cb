import { useEffect, useRef, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";

/** spec §9: side panels slide in 300 ms. */
export const SLIDE_MS = 300;

/**
 * spec §2 reusable slide-in side panel: title, back button, 300 ms slide. Stays mounted
 * (inert) while it slides out so the animation is seen; Escape closes it.
 */
export function SidePanel(props: {
  open: boolean;
  title: string;
  onBack: () => void;
  children: React.ReactNode;
  /** Only the top panel of a stack answers Escape. */
  top?: boolean;
  /** Buttons kept in the thumb zone at the bottom of the panel. */
  footer?: React.ReactNode;
}) {
  useSignals();
  const [mounted, setMounted] = useState(props.open);
  const [shown, setShown] = useState(false);
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (props.open) {
      setMounted(true);
      const id = requestAnimationFrame(() => setShown(true));
      return () => cancelAnimationFrame(id);
    }
    setShown(false);
    const id = setTimeout(() => setMounted(false), SLIDE_MS);
    return () => clearTimeout(id);
  }, [props.open]);
  useEffect(() => {
    if (!props.open || props.top === false) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && props.onBack();
    addEventListener("keydown", onKey);
    ref.current?.focus();
    return () => removeEventListener("keydown", onKey);
  }, [props.open, props.top]);
  if (!mounted) return null;
  return (
    <section
      ref={ref}
      className={`side-panel${shown && props.open ? " open" : ""}`}
      role="dialog"
      aria-modal="true"
      aria-label={props.title}
      tabIndex={-1}
      // A closing panel stays for its slide but is no longer there for anyone: no focus, no
      // taps, not in the accessibility tree (its Back would otherwise stand beside the new
      // panel's Back for 300 ms, and a screen reader or a test could take the wrong one).
      inert={!props.open}
    >
      <header className="panel-header">
        <button
          type="button"
          className="icon-button"
          aria-label={t("common.back")}
          onClick={props.onBack}
        >
          ‹
        </button>
        <h2>{props.title}</h2>
      </header>
      <div className="panel-body">{props.children}</div>
      {props.footer ? <footer className="panel-footer">{props.footer}</footer> : null}
    </section>
  );
}
