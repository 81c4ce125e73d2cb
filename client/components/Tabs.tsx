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
  // The close buttons stand beside the tablist, not in it: a tablist owns only tabs
  // (WCAG 1.3.1, ARIA required children).
  const closable = props.onClose
    ? props.tabs.filter((tab) => tab.closable && tab.key === props.active)
    : [];
  const list = (
    <div
      className={`tabs${props.small ? " sub-tabs" : ""}${closable.length ? " with-close" : ""}`}
      role="tablist"
      aria-label={props.label}
    >
      {props.tabs.map((tab) => (
        <button
          key={tab.key}
          type="button"
          role="tab"
          aria-selected={tab.key === props.active}
          className={`tab${tab.key === props.active ? " active" : ""}${
            tab.closable ? " closable" : ""
          }`}
          onClick={() => props.onSelect(tab.key)}
        >
          {tab.label}
          {tab.badge ? <span className="badge" aria-hidden="true">{tab.badge}</span> : null}
        </button>
      ))}
    </div>
  );
  if (!closable.length) return list;
  return (
    <div className="tabs-row">
      {list}
      {closable.map((tab) => (
        <button
          key={tab.key}
          type="button"
          className="tab-close"
          aria-label={t("docs.closeTab", { name: tab.label })}
          onClick={() => props.onClose!(tab.key)}
        >
          ×
        </button>
      ))}
    </div>
  );
}
