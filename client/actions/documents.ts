import { type DocumentInfo, documents as api } from "../shared/contract/documents.ts";
import { call } from "../api/http.ts";
import { t } from "../i18n/index.ts";
import { docPanel, type DocPanelState, type OpenedFile } from "../state/receipts.ts";
import { askConfirm, openSheet, pushBanner, showNotice } from "../state/ui.ts";
import { busy } from "./busy.ts";
import { checkFile, deleteDocument, sendFile } from "./files.ts";
import { messageOf } from "./messages.ts";
import { applyCounts, fileOf, forget } from "./receipts.ts";
import { changed } from "./changes.ts";

// spec §2 document panel (list with download, delete only when allowed, lock icon, file
// chooser, progress bar, Upload disabled until files are chosen, closable dynamic tabs),
// §4 Upload (percent; on completion the chosen files are cleared and the list reloads after
// 1.5 s), §8 upload error and remote delete; §7 pwaexpensereceiptdocuments.

/** spec §9: the document list reloads 1.5 s after an upload completes. */
export const RELOAD_AFTER_UPLOAD_MS = 1500;

function patch(p: Partial<DocPanelState>): void {
  if (docPanel.value) docPanel.value = { ...docPanel.value, ...p };
}

export async function openDocuments(record: string): Promise<void> {
  docPanel.value = {
    record,
    documents: [],
    loading: true,
    files: [],
    canAdd: null,
    secure: false,
    upload: null,
    tabs: [],
    active: "list",
  };
  openSheet({ kind: "documents" });
  await Promise.all([loadDocuments(), checkCanAdd(record)]);
}

/** spec §7 pwacheckadddocumentcontent: the chooser shows only where documents may be added. */
async function checkCanAdd(record: string): Promise<void> {
  try {
    const r = await call(api.checkAdd, { query: { record, documenttype: "document" } });
    if (docPanel.value?.record === record) patch({ canAdd: r.result === 1 });
  } catch {
    // Offline or refused: the transaction's own state decides (DocumentsBody).
  }
}

export async function loadDocuments(): Promise<void> {
  const record = docPanel.value?.record;
  if (!record) return;
  try {
    const r = await call(api.list, { query: { record, cacherecord: record } });
    if (docPanel.value?.record === record) patch({ documents: r.documents, loading: false });
  } catch (err) {
    patch({ loading: false });
    pushBanner(messageOf(err));
  }
}

/** The file chooser's choice: each file is checked (spec §5); refused ones are dropped. */
export async function chooseFiles(list: File[]): Promise<boolean> {
  const ok: File[] = [];
  for (const f of list) {
    try {
      if (await checkFile(f)) ok.push(f);
      else {
        patch({ files: [] });
        return false;
      }
    } catch (err) {
      pushBanner(messageOf(err));
      return false;
    }
  }
  patch({ files: ok });
  return true;
}

export function setSecure(secure: boolean): void {
  patch({ secure });
}

/** Upload: the chosen files one after the other, the bar showing the percent of each. */
export async function uploadChosen(): Promise<void> {
  const s = docPanel.value;
  if (!s || !s.files.length) return;
  const record = s.record;
  await busy(async () => {
    let queued = false;
    for (const f of s.files) {
      patch({ upload: { name: f.name, percent: 0 } });
      try {
        const r = await sendFile(
          f,
          { record, documenttype: "document", secure: s.secure },
          (percent) => patch({ upload: { name: f.name, percent } }),
        );
        // null: no network, the file waits in the offline queue (spec §1 offline).
        if (r) applyCounts(record, r);
        else queued = true;
      } catch (err) {
        // spec §8: upload error — the loading indicator stops.
        patch({ upload: null });
        pushBanner(messageOf(err));
        return;
      }
    }
    if (!queued) showNotice(t("docs.uploaded"));
  });
  // spec §4: the file list is cleared and the document list reloads after 1.5 s.
  patch({ files: [] });
  setTimeout(() => {
    if (docPanel.value?.record !== record) return;
    patch({ upload: null });
    void loadDocuments();
    void changed("receipt", record);
  }, RELOAD_AFTER_UPLOAD_MS);
}

/** Delete (only where canBeDeleted): locally, or through the document service (spec §8). */
export function removeDocument(doc: DocumentInfo): void {
  askConfirm({
    message: t("docs.deleteConfirm", { name: doc.documentName }),
    showNo: true,
    yesLabel: t("docs.deleteYes"),
    danger: true,
    onYes: async () => {
      await busy(async () => {
        try {
          await deleteDocument(doc.oid);
          forget(doc.oid);
          closeTab(doc.oid);
        } catch (err) {
          pushBanner(messageOf(err));
        }
      });
      await loadDocuments();
      void changed("receipt", docPanel.value?.record ?? doc.oid);
    },
  });
}

/**
 * Opens a document in its own closable tab: its preview first (spec §7 pwapreview), the
 * original only when asked (the tab's viewer fetches them).
 */
export function openDocument(doc: OpenedFile): void {
  const s = docPanel.value;
  if (!s) return;
  if (!s.tabs.some((x) => x.oid === doc.oid)) patch({ tabs: [...s.tabs, doc] });
  patch({ active: doc.oid });
}

export function selectTab(key: string): void {
  patch({ active: key });
}

export function closeTab(oid: string): void {
  const s = docPanel.value;
  if (!s) return;
  patch({
    tabs: s.tabs.filter((x) => x.oid !== oid),
    active: s.active === oid ? "list" : s.active,
  });
}

/** Download: the file saved under its name (spec §2 document panel). */
export async function downloadDocument(doc: DocumentInfo): Promise<void> {
  try {
    const { blob } = await fileOf(doc.oid);
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = doc.documentName;
    a.rel = "noopener";
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (err) {
    pushBanner(messageOf(err));
  }
}
