import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { loadTypes } from "../../actions/lookups.ts";
import { FieldButton } from "../../components/FieldButton.tsx";
import { t } from "../../i18n/index.ts";
import { approvalFilters, approvalRows, mode } from "../../state/approvals.ts";
import { type Filters, filters, NO_FILTERS, requestRows } from "../../state/requests.ts";
import { typesByAccount } from "../../state/lookups.ts";
import { openSheet, type SelectOption } from "../../state/ui.ts";
import { PanelFooter } from "../../components/PanelFooter.tsx";

/** Distinct values of the user's requests, so every option filters to something. */
function distinct(pairs: [string | null, string][]): SelectOption[] {
  const m = new Map<string, string>();
  for (const [v, l] of pairs) if (v) m.set(v, l || v);
  return [...m].map(([value, label]) => ({ value, label }))
    .sort((a, b) => a.label.localeCompare(b.label));
}

/** Opens the filter panel (of the current mode) with the type labels loaded. */
export function openFilter(): void {
  openSheet({ kind: "filter" });
  if (mode.value === "request" && !typesByAccount.value[""]) void loadTypes("");
}

/** The filterable values of the current mode's rows, as [value, label] pairs per filter. */
function sources(): Record<keyof Filters, [string | null, string][]> {
  if (mode.value === "approval") {
    const rows = approvalRows.value;
    return {
      types: rows.map((r) => [r.typeOid, r.type]),
      costCenters: rows.map((r) => [r.costCenterOid, r.costCenter]),
      ledgers: rows.map((r) => [r.GLOid, r.GLCode]),
      projects: rows.map((r) => [r.projectOid, r.projectCode]),
      authors: rows.map((r) => [r.authorOid, r.author]),
    };
  }
  const rows = requestRows.value;
  const typeLabel = new Map((typesByAccount.value[""] ?? []).map((x) => [x.oid, x.description]));
  return {
    types: rows.map((r) => [r.typeOid, typeLabel.get(r.typeOid) ?? r.typeOid]),
    costCenters: rows.map((r) => [r.costCenterOid, r.costCenter]),
    ledgers: rows.map((r) => [r.GLOid, r.GLCode]),
    projects: rows.map((r) => [r.projectOid, r.projectCode]),
    authors: [],
  };
}

/**
 * spec §2 filter panel: type, cost center, GL code, project code, and author in approval
 * mode; each sub-list has search,
 * select all and OK; clear filters and apply.
 */
/**
 * What a filter row shows: the names chosen ("Travel", "Travel, IT"), the first two and
 * how many more beyond them ("Travel, IT +2"); "" when none.
 */
export function chosenNames(options: SelectOption[], values: string[]): string {
  const names = values.map((v) => options.find((o) => o.value === v)?.label ?? v);
  if (names.length <= 2) return names.join(", ");
  return `${names.slice(0, 2).join(", ")} +${names.length - 2}`;
}

export function FilterBody(props: { onDone: () => void }) {
  useSignals();
  // The panel filters the list of the mode it was opened in.
  const [target] = useState(() => mode.value === "approval" ? approvalFilters : filters);
  const [f, setF] = useState<Filters>(target.value);
  const src = sources();
  const lists: { key: keyof Filters; label: string; options: SelectOption[] }[] = [
    { key: "types", label: t("filter.type"), options: distinct(src.types) },
    { key: "costCenters", label: t("filter.costCenter"), options: distinct(src.costCenters) },
    { key: "ledgers", label: t("filter.ledger"), options: distinct(src.ledgers) },
    { key: "projects", label: t("filter.project"), options: distinct(src.projects) },
    // spec §2: author in approval mode only.
    ...(target === approvalFilters
      ? [{ key: "authors" as const, label: t("filter.author"), options: distinct(src.authors) }]
      : []),
  ];
  return (
    <div className="form filter-form">
      {lists.map((l) => (
        <FieldButton
          key={l.key}
          label={l.label}
          value={chosenNames(l.options, f[l.key]) || t("filter.any")}
          onOpen={() =>
            openSheet({
              kind: "select",
              select: {
                title: l.label,
                options: l.options,
                multiple: true,
                selected: f[l.key],
                onDone: (values) => setF((cur) => ({ ...cur, [l.key]: values })),
              },
            })}
        />
      ))}
      <PanelFooter>
        <div className="button-row sticky-action">
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setF(NO_FILTERS);
              target.value = NO_FILTERS;
              props.onDone();
            }}
          >
            {t("filter.clear")}
          </button>
          <button
            type="button"
            className="primary"
            onClick={() => {
              target.value = f;
              props.onDone();
            }}
          >
            {t("filter.apply")}
          </button>
        </div>
      </PanelFooter>
    </div>
  );
}
