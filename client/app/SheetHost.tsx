import { useSignals } from "@preact/signals-react/runtime";
import { DatePicker } from "../components/DatePicker.tsx";
import { SelectList } from "../components/SelectList.tsx";
import { SidePanel } from "../components/SidePanel.tsx";
import { t } from "../i18n/index.ts";
import { detail } from "../state/requests.ts";
import { approvalDetail } from "../state/approvals.ts";
import {
  ApprovalDetailBody,
  RejectNoteBody,
} from "../screens/ApprovalDetail/ApprovalDetailPanel.tsx";
import { InstallBody } from "../screens/Approvals/AppModeHint.tsx";
import { approvalTitle } from "../screens/Approvals/ApprovalRow.tsx";
import { closeSheet, type SheetEntry, sheets } from "../state/ui.ts";
import { BudgetBody } from "../screens/CreateRequest/BudgetPanel.tsx";
import { CreateRequestBody } from "../screens/CreateRequest/CreateRequestPanel.tsx";
import { EditRequestBody } from "../screens/EditRequest/EditRequestPanel.tsx";
import { FilterBody } from "../screens/Filter/FilterPanel.tsx";
import { RequestDetailBody } from "../screens/RequestDetail/RequestDetailPanel.tsx";
import { CardDetailBody } from "../screens/CardDetail/CardDetailPanel.tsx";
import { SecureBody } from "../screens/Secure/SecurePanel.tsx";
import { closeCard } from "../actions/cards.ts";
import { cardDetail } from "../state/wallet.ts";
import { TransactionDetailBody } from "../screens/TransactionDetail/TransactionDetailPanel.tsx";
import { FlipBody } from "../screens/TransactionDetail/FlipPanel.tsx";
import { VatBody } from "../screens/TransactionDetail/VatPanel.tsx";
import { ReceiptNoteBody } from "../screens/TransactionDetail/ReceiptNotePanel.tsx";
import { DocumentsBody } from "../screens/TransactionDetail/DocumentsPanel.tsx";

function titleOf(e: SheetEntry): string {
  const s = e.sheet;
  switch (s.kind) {
    case "detail": {
      const d = detail.value;
      const id = d?.entity?.id ?? d?.row?.id ?? "";
      return t("detail.title", { id });
    }
    case "approval": {
      // Named by what it is (type, purpose, person); the ids are in its body.
      const d = approvalDetail.value;
      const r = d?.entity ?? d?.row;
      return r ? approvalTitle(r) : t("approval.title", { id: "" }).trim();
    }
    case "card": {
      const d = cardDetail.value;
      return t("card.title", { id: d?.card?.id ?? d?.row?.id ?? "" });
    }
    case "transaction":
      return t("tx.title");
    case "flip":
      return t("flip.title");
    case "vat":
      return t("vat.title");
    case "receiptNote":
      return t("receipts.noteTitle");
    case "documents":
      return t("docs.title");
    case "secure":
      return t("secure.title");
    case "rejectNote":
      return t("approval.rejectNoteTitle");
    case "install":
      return t("install.title");
    case "create":
      return t("create.title");
    case "edit":
      return t("edit.title");
    case "filter":
      return t("filter.title");
    case "budget":
      return t("budget.title");
    case "select":
      return s.select.title;
    case "date":
      return t("date.title");
  }
}

function Body(props: { entry: SheetEntry }) {
  const s = props.entry.sheet;
  const done = () => closeSheet(props.entry.id);
  switch (s.kind) {
    case "detail":
      return <RequestDetailBody />;
    case "approval":
      return <ApprovalDetailBody />;
    case "card":
      return <CardDetailBody />;
    case "transaction":
      return <TransactionDetailBody />;
    case "flip":
      return <FlipBody />;
    case "vat":
      return <VatBody />;
    case "receiptNote":
      return <ReceiptNoteBody />;
    case "documents":
      return <DocumentsBody />;
    case "secure":
      return <SecureBody onDone={done} generateFor={s.generateFor} />;
    case "rejectNote":
      return <RejectNoteBody />;
    case "install":
      return <InstallBody />;
    case "create":
      return <CreateRequestBody />;
    case "edit":
      return <EditRequestBody />;
    case "filter":
      return <FilterBody onDone={done} />;
    case "budget":
      return <BudgetBody onDone={done} />;
    case "select":
      return <SelectList spec={s.select} onClose={done} />;
    case "date":
      return (
        <DatePicker
          value={s.value}
          onPick={(d) => {
            s.onPick(d);
            done();
          }}
        />
      );
  }
}

/** The stack of side panels over the main screen; the top one is active. */
export function SheetHost() {
  useSignals();
  const list = sheets.value;
  const openIds = list.filter((e) => e.open).map((e) => e.id);
  const top = openIds[openIds.length - 1];
  return (
    <>
      {list.map((e) => (
        <SidePanel
          key={e.id}
          open={e.open}
          top={e.id === top}
          title={titleOf(e)}
          onBack={() => e.sheet.kind === "card" ? closeCard(e.id) : closeSheet(e.id)}
        >
          <Body entry={e} />
        </SidePanel>
      ))}
    </>
  );
}
