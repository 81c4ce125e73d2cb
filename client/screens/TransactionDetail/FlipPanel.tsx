import { useSignals } from "@preact/signals-react/runtime";
import { patchFlip, setFlipCostCenter, submitFlip } from "../../actions/transactions.ts";
import { t } from "../../i18n/index.ts";
import { working } from "../../state/session.ts";
import { flipDraft, flipError } from "../../state/transactions.ts";
import { CodeFields } from "../CreateRequest/CodeFields.tsx";
import { FooterSubmit } from "../../components/PanelFooter.tsx";

/**
 * spec §2 Flip form: purpose (required, spec §5), cost center, GL code and project code
 * through the field selector; the flip makes a new expense and jumps to it (spec §4).
 */
export function FlipBody() {
  useSignals();
  const d = flipDraft.value;
  if (!d) return null;
  return (
    <form
      id="form-flip"
      className="form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submitFlip();
      }}
    >
      <p className="hint">{t("flip.hint")}</p>
      <CodeFields
        typeOid={d.typeOid}
        purpose={d.purpose}
        costCenterOid={d.costCenterOid}
        GLOid={d.GLOid}
        projectOid={d.projectOid}
        required={false}
        onPurpose={(purpose) => patchFlip({ purpose })}
        onCostCenter={setFlipCostCenter}
        onLedger={(GLOid) => patchFlip({ GLOid })}
        onProject={(projectOid) => patchFlip({ projectOid })}
      />
      {flipError.value ? <p className="form-error" role="alert">{flipError.value}</p> : null}
      <FooterSubmit form="form-flip" disabled={working.value}>
        {t("flip.submit")}
      </FooterSubmit>
    </form>
  );
}
