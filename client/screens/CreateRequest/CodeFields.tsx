import { useSignals } from "@preact/signals-react/runtime";
import type { Code } from "../../shared/contract/requests.ts";
import { FieldButton, FieldError } from "../../components/FieldButton.tsx";
import { t } from "../../i18n/index.ts";
import { costCentersByType, ledgersByCc, projectsByCc } from "../../state/lookups.ts";
import { openSheet, type SelectOption } from "../../state/ui.ts";

const codeOptions = (list: Code[] | undefined): SelectOption[] =>
  (list ?? []).map((c) => ({ value: c.oid, label: c.label, detail: c.value }));
const labelOf = (list: Code[] | undefined, oid: string | null) =>
  list?.find((c) => c.oid === oid)?.label ?? "";

/** Opens a single-choice field selector (spec §2 field selector). */
export function choose(
  title: string,
  options: SelectOption[],
  current: string | null,
  onPick: (v: string | null) => void,
  allowNone = false,
): void {
  openSheet({
    kind: "select",
    select: {
      title,
      options,
      multiple: false,
      selected: current ? [current] : [],
      allowNone,
      onDone: (v) => onPick(v[0] || null),
    },
  });
}

/**
 * Purpose, cost center, GL code and project code, shared by create request (codes
 * optional) and edit request (codes required, spec §5). GL and project lists are those of
 * the chosen cost center (spec §4).
 */
export function CodeFields(props: {
  typeOid: string | null;
  purpose: string;
  costCenterOid: string | null;
  GLOid: string | null;
  projectOid: string | null;
  required: boolean;
  onPurpose: (v: string) => void;
  onCostCenter: (v: string | null) => void;
  onLedger: (v: string | null) => void;
  onProject: (v: string | null) => void;
  /** The purpose's §5 message, shown under it (the create form). */
  purposeError?: string;
}) {
  useSignals();
  const ccs = costCentersByType.value[props.typeOid ?? ""];
  const cc = props.costCenterOid;
  const gls = cc ? ledgersByCc.value[cc] : undefined;
  const prjs = cc ? projectsByCc.value[cc] : undefined;
  const label = (key: "field.costCenter" | "field.ledger" | "field.project") =>
    props.required ? t(key) : t("field.optional", { label: t(key) });
  const empty = props.required ? t("field.choose") : t("field.none");
  const field = (
    key: "field.costCenter" | "field.ledger" | "field.project",
    list: Code[] | undefined,
    value: string | null,
    onPick: (v: string | null) => void,
    disabled: boolean,
  ) => (
    <FieldButton
      label={label(key)}
      value={labelOf(list, value) || empty}
      invalid={props.required && !value}
      disabled={disabled}
      onOpen={() => choose(t(key), codeOptions(list), value, onPick, !props.required)}
    />
  );
  return (
    <>
      <label>
        <span>{t("field.purpose")}</span>
        <textarea
          id="purpose"
          rows={2}
          maxLength={500}
          aria-invalid={props.purposeError ? true : undefined}
          aria-describedby={props.purposeError ? "purpose-error" : undefined}
          value={props.purpose}
          onInput={(e) => props.onPurpose((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <FieldError id="purpose-error" message={props.purposeError} />
      {field("field.costCenter", ccs, cc, props.onCostCenter, !props.typeOid)}
      {field("field.ledger", gls, props.GLOid, props.onLedger, !cc)}
      {field("field.project", prjs, props.projectOid, props.onProject, !cc)}
    </>
  );
}
