import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { loadTypes } from "../../actions/lookups.ts";
import { FieldButton } from "../../components/FieldButton.tsx";
import { t } from "../../i18n/index.ts";
import {
  type Filters,
  filters,
  NO_FILTERS,
  requestRows,
  typesByAccount,
} from "../../state/requests.ts";
import { openSheet, type SelectOption } from "../../state/ui.ts";

/** Distinct values of the user's requests, so every option filters to something. */
function distinct(pairs: [string | null, string][]): SelectOption[] {
  const m = new Map<string, string>();
  for (const [v, l] of pairs) if (v) m.set(v, l || v);
  return [...m].map(([value, label]) => ({ value, label }))
    .sort((a, b) => a.label.localeCompare(b.label));
}

/** Opens the filter panel with the type labels loaded. */
export function openFilter(): void {
  openSheet({ kind: "filter" });
  if (!typesByAccount.value[""]) void loadTypes("");
}

/**
 * spec §2 filter panel: type, cost center, GL code, project code; each sub-list has search,
 * select all and OK; clear filters and apply.
 */
export function FilterBody(props: { onDone: () => void }) {
  useSignals();
  const [f, setF] = useState<Filters>(filters.value);
  const rows = requestRows.value;
  const typeLabel = new Map((typesByAccount.value[""] ?? []).map((x) => [x.oid, x.description]));
  const lists: { key: keyof Filters; label: string; options: SelectOption[] }[] = [
    {
      key: "types",
      label: t("filter.type"),
      options: distinct(rows.map((r) => [r.typeOid, typeLabel.get(r.typeOid) ?? r.typeOid])),
    },
    {
      key: "costCenters",
      label: t("filter.costCenter"),
      options: distinct(rows.map((r) => [r.costCenterOid, r.costCenter])),
    },
    {
      key: "ledgers",
      label: t("filter.ledger"),
      options: distinct(rows.map((r) => [r.GLOid, r.GLCode])),
    },
    {
      key: "projects",
      label: t("filter.project"),
      options: distinct(rows.map((r) => [r.projectOid, r.projectCode])),
    },
  ];
  return (
    <div className="form filter-form">
      {lists.map((l) => (
        <FieldButton
          key={l.key}
          label={l.label}
          value={f[l.key].length
            ? t("filter.selected", { count: f[l.key].length })
            : t("filter.any")}
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
      <div className="button-row sticky-action">
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setF(NO_FILTERS);
            filters.value = NO_FILTERS;
            props.onDone();
          }}
        >
          {t("filter.clear")}
        </button>
        <button
          type="button"
          className="primary"
          onClick={() => {
            filters.value = f;
            props.onDone();
          }}
        >
          {t("filter.apply")}
        </button>
      </div>
    </div>
  );
}
