import { useSignals } from "@preact/signals-react/runtime";

/** spec §2 reusable selectable list option row: label, optional detail, a check when chosen. */
export function OptionRow(props: {
  label: string;
  detail?: string;
  selected: boolean;
  onSelect: () => void;
}) {
  useSignals();
  return (
    <li>
      <button
        type="button"
        className={`option-row${props.selected ? " selected" : ""}`}
        aria-pressed={props.selected}
        aria-label={props.label}
        onClick={props.onSelect}
      >
        <span className="option-label">
          {props.label}
          {props.detail ? <small>{props.detail}</small> : null}
        </span>
        <span className="option-check" aria-hidden="true">{props.selected ? "✓" : ""}</span>
      </button>
    </li>
  );
}
