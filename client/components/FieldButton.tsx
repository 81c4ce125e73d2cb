import { useSignals } from "@preact/signals-react/runtime";

/**
 * A form row that opens a field selector (spec §2 field selector): its label and current
 * value, a whole-width target for a thumb. The accessible name is the label; the value is
 * read after it.
 */
export function FieldButton(props: {
  label: string;
  value: string;
  onOpen: () => void;
  disabled?: boolean;
  invalid?: boolean;
}) {
  useSignals();
  return (
    <button
      type="button"
      className={`field-button${props.invalid ? " invalid" : ""}`}
      onClick={props.onOpen}
      disabled={props.disabled}
      aria-label={props.label}
      aria-description={props.value}
    >
      <span className="field-label">{props.label}</span>
      <span className="field-value">{props.value}</span>
      <span aria-hidden="true">›</span>
    </button>
  );
}
