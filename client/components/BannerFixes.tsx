import { useEffect } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { openTransaction } from "../actions/transactions.ts";
import { t } from "../i18n/index.ts";
import { firstOverdue } from "../lib/transaction_view.ts";
import { transactionRows } from "../state/transactions.ts";
import { bannerFix } from "../state/ui.ts";

/**
 * spec §5 block "transactions that still have no receipts": its banner offers "Add receipt",
 * which opens the transaction overdue longest. Mounted with the main screen.
 */
export function useBannerFixes(): void {
  useEffect(() => {
    bannerFix.value = (fix) => (fix === "receipt" ? <FixReceipt /> : null);
    return () => void (bannerFix.value = null);
  }, []);
}

function FixReceipt() {
  useSignals();
  const first = firstOverdue(transactionRows.value);
  if (!first) return null;
  return (
    <button
      type="button"
      className="banner-action"
      onClick={() => void openTransaction(first.oid)}
    >
      {t("receipts.add")}
    </button>
  );
}
