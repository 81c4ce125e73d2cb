import { useSignals } from "@preact/signals-react/runtime";
import { patchEdit, saveEdit, setEditCostCenter } from "../../actions/requests.ts";
import { FieldButton } from "../../components/FieldButton.tsx";
import { t } from "../../i18n/index.ts";
import {
  costCentersByType,
  editDraft,
  formError,
  ledgersByCc,
  projectsByCc,
} from "../../state/requests.ts";
import { working } from "../../state/session.ts";
import { choose } from "../CreateRequest/CreateRequestPanel.tsx";
import type { Code } from "../../api/contract/requests.ts";

const options = (list: Code[] | undefined) =>
  (list ?? []).map((c) => ({ value: c.oid, label: c.label, detail: c.value }));
const labelOf = (list: Code[] | undefined, oid: string | null) =>
  list?.find((c) => c.oid === oid)?.label ?? "";

/** spec §2 edit request: purpose, cost center, GL code, project code (all three required). */
export function EditRequestBody() {
  useSignals();
  const d = editDraft.value;
  if (!d) return null;
  const ccs = costCentersByType.value[d.typeOid];
  const gls = d.costCenterOid ? ledgersByCc.value[d.costCenterOid] : undefined;
  const prjs = d.costCenterOid ? projectsByCc.value[d.costCenterOid] : undefined;
  return (
    <form
      className="form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        saveEdit();
      }}
    >
      <label>
        <span>{t("field.purpose")}</span>
        <textarea
          rows={2}
          maxLength={500}
          value={d.purpose}
          onInput={(e) => patchEdit({ purpose: (e.target as HTMLTextAreaElement).value })}
        />
      </label>
      <FieldButton
        label={t("field.costCenter")}
        value={labelOf(ccs, d.costCenterOid) || t("field.choose")}
        invalid={!d.costCenterOid}
        onOpen={() =>
          choose(t("field.costCenter"), options(ccs), d.costCenterOid, setEditCostCenter)}
      />
      <FieldButton
        label={t("field.ledger")}
        value={labelOf(gls, d.GLOid) || t("field.choose")}
        invalid={!d.GLOid}
        disabled={!d.costCenterOid}
        onOpen={() =>
          choose(t("field.ledger"), options(gls), d.GLOid, (v) => patchEdit({ GLOid: v }))}
      />
      <FieldButton
        label={t("field.project")}
        value={labelOf(prjs, d.projectOid) || t("field.choose")}
        invalid={!d.projectOid}
        disabled={!d.costCenterOid}
        onOpen={() =>
          choose(t("field.project"), options(prjs), d.projectOid, (v) =>
            patchEdit({ projectOid: v }))}
      />
      {formError.value ? <p className="form-error" role="alert">{formError.value}</p> : null}
      <button type="submit" className="primary wide sticky-action" disabled={working.value}>
        {t("edit.save")}
      </button>
    </form>
  );
}
