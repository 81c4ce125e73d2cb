import { useSignals } from "@preact/signals-react/runtime";

/**
 * A form row that opens a field selector (spec §2 field selector): its label and current
 * value, a whole-width target for a thumb. Its accessible name is what it shows, label then
 * value (WCAG 2.5.3: the visible text is part of the name).
 */
export function FieldButton(props: {
  label: string;
  value: string;
  onOpen: () => void;
  disabled?: boolean;
  invalid?: boolean;
  /** A message under the field (spec §5 violation): the field is marked invalid with it. */
  error?: string;
  id?: string;
}) {
  useSignals();
  const errorId = props.error && props.id ? `${props.id}-error` : undefined;
  const button = (
    <button
      type="button"
      id={props.id}
      className={`field-button${props.invalid || props.error ? " invalid" : ""}`}
      onClick={props.onOpen}
      disabled={props.disabled}
      aria-invalid={props.error ? true : undefined}
      aria-describedby={errorId}
    >
      <span className="field-label">{props.label}</span>
      <span className="field-value">{props.value}</span>
      <span aria-hidden="true">›</span>
    </button>
  );
  if (!props.error) return button;
  return (
    <div className="field-with-error">
      {button}
      <FieldError id={errorId} message={props.error} />
    </div>
  );
}

/** A field's message, under it; the field names it with aria-describedby. */
export function FieldError(props: { id?: string; message?: string | null }) {
  if (!props.message) return null;
  return <p id={props.id} className="field-error">{props.message}</p>;
}
