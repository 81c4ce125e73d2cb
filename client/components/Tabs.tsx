import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";

export interface TabDef<K extends string> {
  key: K;
  label: string;
  badge?: number;
  /** A dynamic tab (an opened document): shows a close button (spec §2 closable tabs). */
  closable?: boolean;
}

/** spec §2 tabs, with closable dynamic tabs (the document panel's opened documents). */
export function Tabs<K extends string>(props: {
  tabs: TabDef<K>[];
  active: K;
  onSelect: (k: K) => void;
  label: string;
  /** A secondary row of tabs (sub-filters). */
  small?: boolean;
  onClose?: (k: K) => void;
}) {
  useSignals();
  return (
    <nav
      className={`tabs${props.small ? " sub-tabs" : ""}`}
      role="tablist"
      aria-label={props.label}
    >
      {props.tabs.map((tab) => (
        <span
          key={tab.key}
          className={`tab-slot${tab.closable ? " closable" : ""}`}
          role="presentation"
        >
          <button
            type="button"
            role="tab"
            aria-selected={tab.key === props.active}
            className={`tab${tab.key === props.active ? " active" : ""}`}
            onClick={() => props.onSelect(tab.key)}
          >
            {tab.label}
            {tab.badge ? <span className="badge" aria-hidden="true">{tab.badge}</span> : null}
          </button>
          {tab.closable && props.onClose
            ? (
              <button
                type="button"
                className="tab-close"
                aria-label={t("docs.closeTab", { name: tab.label })}
                onClick={() => props.onClose!(tab.key)}
              >
                ×
              </button>
            )
            : null}
        </span>
      ))}
    </nav>
  );
}
