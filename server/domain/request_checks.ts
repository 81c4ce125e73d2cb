import type { TranslationKey } from "../../client/shared/i18n/locales/en.ts";
import type { Violation } from "../../client/shared/request_rules.ts";
import { forbidden, type HttpError, unprocessable } from "../errors.ts";
import type { Deps } from "./env.ts";
import type { translate } from "../i18n.ts";
import type { OrgCode, OrgCostCenter, OrgType } from "../store/org.ts";
import type { RequestRecord } from "../store/requests.ts";
import { codeWordsOf, labelIn } from "../org/labels.ts";

// What creating and changing requests share: error answers and the code rules (spec §4, §5).

/** How often a write re-reads and retries when another write changed the record first. */
export const RETRIES = 5;

export type Tr = Awaited<ReturnType<typeof translate>>;

/** 'request.amountRange' → 'amount_range': the machine code of a rule's error answer. */
function codeOf(key: string): string {
  return key.replace(/^[a-z]+\./, "").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A §5 rule violation as a 422 in the caller's language. */
export function broken(tr: Tr, key: TranslationKey, params?: Violation["params"]): HttpError {
  return unprocessable(codeOf(key), tr(key, params));
}

export function notAllowed(tr: Tr): HttpError {
  return forbidden("not_allowed", tr("request.notAllowed"));
}

type Codes = Pick<
  RequestRecord,
  | "costCenterOid"
  | "costCenter"
  | "GLOid"
  | "GLCode"
  | "projectOid"
  | "projectCode"
  | "codeWords"
>;

/**
 * Cost center, GL code and project must belong together (spec §4: the GL and project
 * lists depend on the cost center) and the cost center must be one the type allows.
 */
export async function resolveCodes(
  deps: Deps,
  tr: Tr,
  type: OrgType,
  cc: string | null | undefined,
  gl: string | null | undefined,
  prj: string | null | undefined,
): Promise<Codes> {
  const org = deps.store.org;
  if (!cc) {
    if (gl || prj) throw broken(tr, "request.codesMismatch");
    return {
      costCenterOid: null,
      costCenter: "",
      GLOid: null,
      GLCode: "",
      projectOid: null,
      projectCode: "",
      codeWords: {},
    };
  }
  const center = await org.get<OrgCostCenter>("costcenter", cc);
  if (!center || (type.costCenterOids && !type.costCenterOids.includes(cc))) {
    throw broken(tr, "request.costCenterNotAllowed");
  }
  const ledger = gl ? await org.get<OrgCode>("ledger", gl) : null;
  const project = prj ? await org.get<OrgCode>("project", prj) : null;
  if (
    (gl && (!ledger || !center.ledgerOids.includes(gl))) ||
    (prj && (!project || !center.projectOids.includes(prj)))
  ) {
    throw broken(tr, "request.codesMismatch");
  }
  return {
    costCenterOid: cc,
    // The record keeps the English words (the fallback); the oids stay the references.
    costCenter: labelIn(center.label, "en"),
    GLOid: ledger?.oid ?? null,
    GLCode: labelIn(ledger?.label, "en"),
    projectOid: project?.oid ?? null,
    projectCode: labelIn(project?.label, "en"),
    // Every language's words beside them, shown in the reader's (labels.ts codesIn).
    codeWords: codeWordsOf(center.label, ledger?.label, project?.label),
  };
}
