import { useSignals } from "@preact/signals-react/runtime";
import {
  chooseFiles,
  closeTab,
  downloadDocument,
  openDocument,
  removeDocument,
  selectTab,
  setSecure,
  uploadChosen,
} from "../../actions/documents.ts";
import { acceptList } from "../../actions/files.ts";
import { DocumentPanel } from "../../components/DocumentPanel.tsx";
import { Tabs } from "../../components/Tabs.tsx";
import { t } from "../../i18n/index.ts";
import { shortName } from "../../lib/file_display.ts";
import { accounting, docPanel } from "../../state/receipts.ts";
import { txDetail } from "../../state/transactions.ts";
import { FileViewer } from "./FileViewer.tsx";

/**
 * spec §2 Receipts document panel: the transaction's documents in the document panel, and
 * each opened document in its own closable tab (spec §2 tabs with closable dynamic tabs).
 */
export function DocumentsBody() {
  useSignals();
  const s = docPanel.value;
  if (!s) return null;
  const tx = txDetail.value?.tx;
  const canAdd = s.canAdd ?? (!!tx && tx.oid === s.record && !tx.readOnlyVAT);
  const tabs = [
    { key: "list", label: t("docs.listTab") },
    ...s.tabs.map((x) => ({ key: x.oid, label: shortName(x.name), closable: true })),
  ];
  const open = s.tabs.find((x) => x.oid === s.active);
  return (
    <div className="documents-body">
      {s.tabs.length
        ? (
          <Tabs
            tabs={tabs}
            active={s.active}
            label={t("docs.title")}
            small
            onSelect={selectTab}
            onClose={closeTab}
          />
        )
        : null}
      {open ? <FileViewer key={open.oid} file={open} /> : (
        <DocumentPanel
          documents={s.documents}
          loading={s.loading}
          files={s.files}
          upload={s.upload}
          accept={accounting.value.limitReceiptAttachementFormat ? acceptList() : ""}
          secure={s.secure}
          canAdd={canAdd}
          onChoose={chooseFiles}
          onSecure={setSecure}
          onUpload={() => void uploadChosen()}
          onOpen={(d) =>
            openDocument({
              oid: d.oid,
              name: d.documentName,
              mimeType: d.mimeType,
              size: d.size,
              hasPreview: d.hasPreview,
            })}
          onDownload={(d) => void downloadDocument(d)}
          onDelete={removeDocument}
        />
      )}
    </div>
  );
}
