import { useSignals } from "@preact/signals-react/runtime";

export interface TabDef<K extends string> {
  key: K;
  label: string;
  badge?: number;
}

/** spec §2 tabs (closable dynamic tabs arrive with the document panel). */
export function Tabs<K extends string>(props: {
  tabs: TabDef<K>[];
  active: K;
  onSelect: (k: K) => void;
  label: string;
  /** A secondary row of tabs (sub-filters). */
  small?: boolean;
}) {
  useSignals();
  return (
    <nav
      className={`tabs${props.small ? " sub-tabs" : ""}`}
      role="tablist"
      aria-label={props.label}
    >
      {props.tabs.map((tab) => (
        <button
          type="button"
          role="tab"
          key={tab.key}
          aria-selected={tab.key === props.active}
          className={`tab${tab.key === props.active ? " active" : ""}`}
          onClick={() => props.onSelect(tab.key)}
        >
          {tab.label}
          {tab.badge ? <span className="badge" aria-hidden="true">{tab.badge}</span> : null}
        </button>
      ))}
    </nav>
  );
}
