import { useEffect, useRef, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { FooterSlot } from "./PanelFooter.tsx";

/** spec §9: side panels slide in 300 ms. */
export const SLIDE_MS = 300;

const FOCUSABLE =
  "a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), " +
  "textarea:not([disabled]), iframe, [tabindex]:not([tabindex='-1'])";

/**
 * Keeps Tab and Shift+Tab inside the open panel (WCAG 2.4.3: a modal dialog holds the
 * focus); a dialog above it (a confirmation) keeps its own.
 */
function trapTab(panel: HTMLElement, e: KeyboardEvent): void {
  const at = document.activeElement as HTMLElement | null;
  const other = at?.closest("[role=dialog], [role=alertdialog]");
  if (other && other !== panel) return;
  const list = [...panel.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) =>
    el.getClientRects().length > 0 && !el.closest("[inert]")
  );
  if (!list.length) return void e.preventDefault();
  const first = list[0];
  const last = list[list.length - 1];
  const inside = !!at && panel.contains(at);
  if (e.shiftKey && (!inside || at === first || at === panel)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (!inside || at === last)) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * spec §2 reusable slide-in side panel: title, back button, 300 ms slide. Stays mounted
 * (inert) while it slides out so the animation is seen; Escape closes it. The top panel
 * holds the keyboard focus (Tab cycles inside it), and closing gives the focus back to the
 * control that opened it.
 */
export function SidePanel(props: {
  open: boolean;
  title: string;
  onBack: () => void;
  children: React.ReactNode;
  /** Only the top panel of a stack answers Escape. */
  top?: boolean;
  /** Buttons kept in the thumb zone at the bottom of the panel (or a body's PanelFooter). */
  footer?: React.ReactNode;
}) {
  useSignals();
  const [mounted, setMounted] = useState(props.open);
  const [shown, setShown] = useState(false);
  const ref = useRef<HTMLElement>(null);
  // Where the body's PanelFooter puts its bar: below the scrolling body.
  const [footer, setFooter] = useState<HTMLElement | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (!props.open) return;
    const at = document.activeElement;
    opener.current = at instanceof HTMLElement && at !== document.body ? at : null;
    return () => {
      const o = opener.current;
      // Back to the opener once it can take it (the panel beneath is interactive again).
      if (o?.isConnected && !o.closest("[inert]")) o.focus({ preventScroll: true });
    };
  }, [props.open]);
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
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") props.onBack();
      else if (e.key === "Tab" && ref.current) trapTab(ref.current, e);
    };
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
      <div className="panel-body">
        <FooterSlot.Provider value={footer}>{props.children}</FooterSlot.Provider>
      </div>
      <div className="panel-footer" ref={setFooter}>{props.footer}</div>
    </section>
  );
}
