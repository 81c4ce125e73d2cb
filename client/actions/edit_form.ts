import type { EditDraft } from "../state/requests.ts";
import { editDraft, formError } from "../state/requests.ts";
import { openSheet } from "../state/ui.ts";
import { codesForCostCenter, loadCodes, loadCostCenters } from "./lookups.ts";

// The edit form's fields (spec §2 edit request: purpose, cost center, GL code, project code),
// shared by the requester's edit (request_form.ts) and the approver's (approvals.ts, spec §4).

/** Opens the edit form on a draft, with its cost centers and codes loaded. */
export async function openEdit(d: EditDraft): Promise<void> {
  formError.value = null;
  editDraft.value = d;
  openSheet({ kind: "edit" });
  await loadCostCenters(d.typeOid);
  if (d.costCenterOid) await loadCodes(d.typeOid, d.costCenterOid);
}

export async function setEditCostCenter(oid: string | null): Promise<void> {
  const d = editDraft.value;
  if (!d) return;
  patchEdit({ costCenterOid: oid });
  patchEdit(await codesForCostCenter(d.typeOid, oid, editDraft.value ?? d));
}

export function patchEdit(p: Partial<NonNullable<typeof editDraft.value>>): void {
  if (editDraft.value) editDraft.value = { ...editDraft.value, ...p };
  formError.value = null;
}

/** What an edit sends (spec §2 edit request: purpose, cost center, GL code, project code). */
export function editBody(d: EditDraft) {
  return {
    oid: d.oid,
    purpose: d.purpose,
    costCenterOid: d.costCenterOid,
    GLOid: d.GLOid,
    projectOid: d.projectOid,
  };
}
