import { useSignals } from "@preact/signals-react/runtime";
import { patchEdit, setEditCostCenter } from "../../actions/edit_form.ts";
import { saveEdit } from "../../actions/request_form.ts";
import { saveApprovalEdit } from "../../actions/approvals.ts";
import { t } from "../../i18n/index.ts";
import { editDraft, formError } from "../../state/requests.ts";
import { working } from "../../state/session.ts";
import { CodeFields } from "../CreateRequest/CodeFields.tsx";
import { CreateRequestBody } from "../CreateRequest/CreateRequestPanel.tsx";
import { FooterSubmit } from "../../components/PanelFooter.tsx";

/**
 * spec §2 edit request: purpose, cost center, GL code, project code (all three required once
 * submitted, spec §5). A draft edits everything creation offers, in the create form.
 */
export function EditRequestBody() {
  useSignals();
  const d = editDraft.value;
  if (!d) return null;
  if (d.isDraft) return <CreateRequestBody editing />;
  return (
    <form
      id="form-edit"
      className="form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        // An approver's edit recreates the approval (spec §4); the author's may not need to.
        if (d.approvalOid) void saveApprovalEdit();
        else void saveEdit();
      }}
    >
      <CodeFields
        typeOid={d.typeOid}
        purpose={d.purpose}
        costCenterOid={d.costCenterOid}
        GLOid={d.GLOid}
        projectOid={d.projectOid}
        required
        onPurpose={(purpose) => patchEdit({ purpose })}
        onCostCenter={setEditCostCenter}
        onLedger={(GLOid) => patchEdit({ GLOid })}
        onProject={(projectOid) => patchEdit({ projectOid })}
      />
      {formError.value ? <p className="form-error" role="alert">{formError.value}</p> : null}
      <FooterSubmit form="form-edit" disabled={working.value}>
        {t("edit.save")}
      </FooterSubmit>
    </form>
  );
}
