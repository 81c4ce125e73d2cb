import { noteCommentUpload } from "./comment_upload.ts";
import { requests as api } from "../shared/contract/requests.ts";
import { call } from "../api/http.ts";
import { t } from "../i18n/index.ts";
import { detail, requestRows } from "../state/requests.ts";
import { askConfirm, openSheet, pushBanner } from "../state/ui.ts";
import { walletFilter } from "../state/wallet.ts";
import { busy } from "./busy.ts";
import { dropComment, sendComment } from "./comments.ts";
import { lookup } from "./lookups.ts";
import { messageOf } from "./messages.ts";
import { applied } from "./request_applied.ts";

// The Requests list and the request detail (spec §2); the forms are in request_form.ts.

// ---- Request detail (spec §2) ----

export async function openDetail(oid: string): Promise<void> {
  detail.value = {
    oid,
    row: requestRows.value.find((r) => r.oid === oid) ?? null,
    entity: null,
    comments: [],
  };
  openSheet({ kind: "detail", oid });
  await Promise.all([loadEntity(oid), loadComments(oid)]);
}

function setDetail(oid: string, p: Partial<NonNullable<typeof detail.value>>): void {
  if (detail.value?.oid === oid) detail.value = { ...detail.value, ...p };
}

async function loadEntity(oid: string): Promise<void> {
  await lookup(
    "lists",
    `request:${oid}`,
    api.entity.response,
    () => call(api.entity, { query: { record: oid } }),
    (d) => setDetail(oid, { entity: d.expenseRequest }),
  );
}

async function loadComments(oid: string): Promise<void> {
  await lookup(
    "lists",
    `comments:${oid}`,
    api.comments.response,
    () => call(api.comments, { query: { oid } }),
    (d) => {
      noteCommentUpload(oid, d.commentUploadUrl);
      setDetail(oid, { comments: d.comments });
    },
  );
}

export function addComment(text: string): Promise<boolean> {
  const e = detail.value?.entity;
  return sendComment(
    detail.value?.oid,
    text,
    "request.addComment",
    loadComments,
    e ? { id: e.id, archive: e.archive } : undefined,
  );
}

export function deleteComment(commentOid: string): Promise<void> {
  return dropComment(detail.value?.oid, commentOid, loadComments);
}

/** spec §4: cancel asks for confirmation. */
export function confirmCancel(oid: string): void {
  askConfirm({
    message: t("detail.cancelConfirm"),
    extra: t("detail.cancelExtra"),
    showNo: true,
    // The confirm says the verb of the action, in red.
    yesLabel: t("detail.cancel"),
    danger: true,
    onYes: () =>
      void busy(async () => {
        try {
          await applied((await call(api.cancel, { body: { oid } })).expenseRequest);
        } catch (err) {
          pushBanner(messageOf(err));
        }
      }),
  });
}

/** spec §4: close asks for confirmation, and closing switches the wallet filter to Closed. */
export function confirmClose(oid: string): void {
  askConfirm({
    message: t("detail.closeConfirm"),
    extra: t("detail.closeExtra"),
    showNo: true,
    yesLabel: t("detail.close"),
    danger: true,
    onYes: () =>
      void busy(async () => {
        try {
          await applied((await call(api.close, { body: { oid } })).expenseRequest);
          walletFilter.value = "Closed";
        } catch (err) {
          pushBanner(messageOf(err));
        }
      }),
  });
}

/** A request created earlier whose submit failed (status new) can be submitted from its detail. */
export async function submitExisting(oid: string): Promise<void> {
  await busy(async () => {
    try {
      await applied((await call(api.submit, { body: { record: oid } })).expenseRequest);
    } catch (err) {
      pushBanner(messageOf(err));
    }
  });
}
