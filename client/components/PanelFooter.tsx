import { createContext, type ReactNode, useContext } from "react";
import { createPortal } from "react-dom";

/**
 * The open side panel's footer element (SidePanel provides it): `undefined` outside a panel,
 * `null` while the panel's first render has not placed it yet.
 */
export const FooterSlot = createContext<HTMLElement | null | undefined>(undefined);

/**
 * Puts its children (a form's Submit, a detail's action bar) in the panel's footer, under the
 * scrolling body and in the thumb zone: a bar there never covers a field, whatever is scrolled
 * (a tap on a field at the bottom of a form once landed on the sticky Submit above it). A
 * submit button placed here names its form with the `form` attribute. Outside a panel it
 * renders where it is.
 */
export function PanelFooter(props: { children: ReactNode }) {
  const slot = useContext(FooterSlot);
  if (slot === undefined) return <>{props.children}</>;
  return slot ? createPortal(props.children, slot) : null;
}

/** A form's submit button in the panel's footer; `form` is the form's id. */
export function FooterSubmit(props: { form: string; disabled?: boolean; children: ReactNode }) {
  return (
    <PanelFooter>
      <button
        type="submit"
        form={props.form}
        className="primary wide sticky-action"
        disabled={props.disabled}
      >
        {props.children}
      </button>
    </PanelFooter>
  );
}
