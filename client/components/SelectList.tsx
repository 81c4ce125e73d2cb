import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import type { SelectSpec } from "../state/ui.ts";
import { OptionRow } from "./OptionRow.tsx";
import { PanelFooter } from "./PanelFooter.tsx";

/**
 * spec §2 field selector and filter sub-list: search, the options, and for multiple choice
 * 'select all' and OK. A single choice is done on the first tap.
 */
export function SelectList(props: { spec: SelectSpec; onClose: () => void }) {
  useSignals();
  const { spec } = props;
  const [query, setQuery] = useState("");
  const [chosen, setChosen] = useState<string[]>(spec.selected);
  const q = query.trim().toLowerCase();
  const shown = q
    ? spec.options.filter((o) => `${o.label} ${o.detail ?? ""}`.toLowerCase().includes(q))
    : spec.options;
  const pick = (v: string) => {
    if (!spec.multiple) {
      spec.onDone(v ? [v] : []);
      props.onClose();
      return;
    }
    setChosen(chosen.includes(v) ? chosen.filter((x) => x !== v) : [...chosen, v]);
  };
  const allShown = shown.length > 0 && shown.every((o) => chosen.includes(o.value));
  return (
    <div className="select-list">
      {spec.multiple || spec.options.length > 7
        ? (
          <input
            type="search"
            className="search"
            aria-label={t("field.search")}
            placeholder={t("field.search")}
            value={query}
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          />
        )
        : null}
      {spec.multiple && shown.length
        ? (
          <button
            type="button"
            className="link"
            onClick={() =>
              setChosen(
                allShown
                  ? chosen.filter((v) => !shown.some((o) => o.value === v))
                  : [...new Set([...chosen, ...shown.map((o) => o.value)])],
              )}
          >
            {t("filter.selectAll")}
          </button>
        )
        : null}
      {shown.length ? null : <p className="empty">{t("filter.noOptions")}</p>}
      <ul className="options" aria-label={spec.title}>
        {spec.allowNone && !spec.multiple
          ? (
            <OptionRow
              label={t("field.none")}
              selected={chosen.length === 0}
              onSelect={() => pick("")}
            />
          )
          : null}
        {shown.map((o) => (
          <OptionRow
            key={o.value}
            label={o.label}
            detail={o.detail}
            selected={chosen.includes(o.value)}
            onSelect={() => pick(o.value)}
          />
        ))}
      </ul>
      {spec.multiple
        ? (
          <PanelFooter>
            <button
              type="button"
              className="primary wide sticky-action"
              onClick={() => {
                spec.onDone(chosen);
                props.onClose();
              }}
            >
              {t("common.ok")}
            </button>
          </PanelFooter>
        )
        : null}
    </div>
  );
}
