import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";

export type NavIcon = "requests" | "wallet" | "transactions" | "approvals" | "support";

export interface NavItem<K extends string> {
  key: K;
  label: string;
  icon: NavIcon;
  /** How many things on this tab need the person (a receipt missing, an approval waiting). */
  badge?: number;
}

/** 24 px line icons (one set, drawn with currentColor: no emoji that a font may lack). */
const PATHS: Record<NavIcon, string> = {
  requests: "M6 3h9l4 4v14H6zM14 3v5h5M9 12h7M9 16h7",
  wallet: "M3 7h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2H3zM3 7l12-4 1 4M16 13h2",
  transactions: "M4 8h13l-3-3M20 16H7l3 3",
  approvals: "M4 12l5 5L20 6",
  support:
    "M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM9.5 9a2.5 2.5 0 1 1 3.5 2.3c-.7.4-1 1-1 1.7v.5M12 17h.01",
};

export function NavGlyph(props: { icon: NavIcon }) {
  return (
    <svg className="nav-icon" width="24" height="24" viewBox="0 0 24 24" aria-hidden="true">
      <path
        d={PATHS[props.icon]}
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/**
 * spec §2 main tabs as a bottom navigation bar, under the thumb: icon and full label (they
 * wrap rather than being cut), and a badge on the tab of what needs attention. The badge's
 * number is drawn for the eye; screen readers hear "2 need attention" as the tab's
 * description, so the tab keeps its plain name.
 */
export function BottomNav<K extends string>(props: {
  items: NavItem<K>[];
  active: K;
  onSelect: (k: K) => void;
  label: string;
}) {
  useSignals();
  return (
    <nav className="bottom-nav" aria-label={props.label}>
      <div className="bottom-nav-items" role="tablist" aria-label={props.label}>
        {props.items.map((item) => {
          const selected = item.key === props.active;
          const descId = item.badge ? `nav-attention-${item.key}` : undefined;
          return (
            <button
              key={item.key}
              type="button"
              role="tab"
              id={`nav-tab-${item.key}`}
              aria-selected={selected}
              aria-controls="main-tabpanel"
              aria-describedby={descId}
              className={`nav-tab${selected ? " active" : ""}`}
              onClick={() => props.onSelect(item.key)}
            >
              <span className="nav-glyph">
                <NavGlyph icon={item.icon} />
                {item.badge
                  ? <span className="badge nav-badge" aria-hidden="true">{item.badge}</span>
                  : null}
              </span>
              <span className="nav-label">{item.label}</span>
            </button>
          );
        })}
      </div>
      {props.items.map((item) =>
        item.badge
          ? (
            <span key={item.key} id={`nav-attention-${item.key}`} className="sr-only">
              {t("main.attention", { count: item.badge })}
            </span>
          )
          : null
      )}
    </nav>
  );
}
