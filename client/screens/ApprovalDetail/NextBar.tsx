import { useEffect, useId, useRef } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { openNextApproval } from "../../actions/approvals.ts";
import { t } from "../../i18n/index.ts";
import { nextToDecide, toDecideCount } from "../../state/approvals.ts";
import { closeSheet } from "../../state/ui.ts";
import { approvalTitle } from "../Approvals/ApprovalRow.tsx";
import { PanelFooter } from "../../components/PanelFooter.tsx";

/**
 * After a decision, the approval detail offers the next approval waiting for this person
 * ("Next", opened in its place) instead of sending them back to the list, and says when none
 * is left. It takes the action bar's place at the panel's foot, and the focus the decided
 * approval's buttons had.
 */
export function NextBar(props: { oid: string }) {
  useSignals();
  const next = nextToDecide(props.oid);
  const left = toDecideCount.value;
  const said = useId();
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    // The Approve button the person used is gone; a keyboard or screen reader goes on here.
    const at = document.activeElement;
    if (!at || at === document.body || !at.isConnected) {
      button.current?.focus({ preventScroll: true });
    }
  }, [props.oid]);
  return (
    <PanelFooter>
      <div className="next-bar sticky-action">
        <p id={said} role="status">
          {next
            ? (
              <>
                {t("approval.next.waiting", { count: left })}
                <span className="next-what">
                  {t("approval.next.what", { what: approvalTitle(next) })}
                </span>
              </>
            )
            : t("approval.next.none")}
        </p>
        {next
          ? (
            <button
              ref={button}
              type="button"
              className="primary"
              aria-describedby={said}
              onClick={() => void openNextApproval(next.oid)}
            >
              {t("approval.next")}
            </button>
          )
          : (
            <button ref={button} type="button" className="secondary" onClick={() => closeSheet()}>
              {t("approval.next.toList")}
            </button>
          )}
      </div>
    </PanelFooter>
  );
}
