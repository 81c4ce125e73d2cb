import type * as z from "zod/mini";
import {
  type Code,
  type ExpenseRequest,
  type ExpenseRow,
  requests as api,
} from "../api/contract/requests.ts";
import { ApiError, call } from "../api/http.ts";
import type { CachedStore } from "../db/qcdb.ts";
import { locale, t, type TranslationKey } from "../i18n/index.ts";
import { budgetTotal, generateBudget } from "../lib/budget.ts";
import { formatMoney, parseAmount } from "../lib/money.ts";
import { checkCreate, checkEdit, type Violation } from "../lib/request_rules.ts";
import {
  accounts,
  costCentersByType,
  currencies,
  detail,
  type Draft,
  draft,
  editDraft,
  emptyDraft,
  filters,
  formError,
  ledgersByCc,
  NO_FILTERS,
  projectsByCc,
  requestRows,
  typesByAccount,
} from "../state/requests.ts";
import { attentionCount } from "../state/session.ts";
import {
  askConfirm,
  closeAllSheets,
  closeSheet,
  openSheet,
  pushBanner,
  showNotice,
} from "../state/ui.ts";
import { walletFilter } from "../state/wallet.ts";
import { busy } from "./busy.ts";
import { cacheFirst } from "./cache.ts";
import { messageOf } from "./messages.ts";
import { refreshLists } from "./session.ts";

/** Called with pwalists' rows (from the cache, then from the network). */
export function showRequests(rows: ExpenseRow[]): void {
  requestRows.value = rows;
  attentionCount.value = rows.filter((r) => r.needsAttention).length;
}

export function resetRequests(): void {
  requestRows.value = [];
  attentionCount.value = 0;
  detail.value = null;
  filters.value = NO_FILTERS;
  closeAllSheets();
}

const tv = (v: Violation) => t(v.key as TranslationKey, v.params);

/** One lookup through the cache (spec §1: shown from the cache, then refreshed). */
async function lookup<S extends z.ZodMiniType>(
  store: CachedStore,
  key: string,
  schema: S,
  fetch: () => Promise<z.infer<S>>,
  show: (data: z.infer<S>) => void,
): Promise<void> {
  try {
    await cacheFirst({ store, key, schema, fetch, show });
  } catch (err) {
    pushBanner(messageOf(err));
  }
}

export const loadAccounts = () =>
  lookup("lists", "accounts", api.accounts.response, () => call(api.accounts), (d) => {
    accounts.value = d.accounts;
  });

export const loadCurrencies = () =>
  lookup("currencylist", "currencies", api.currencies.response, () => call(api.currencies), (d) => {
    currencies.value = d.currencylist;
  });

/** Types of one account ('' = every type, for the filter panel's labels). */
export const loadTypes = (accountOid: string) =>
  lookup(
    "types",
    `types:${accountOid}`,
    api.types.response,
    () => call(api.types, { query: accountOid ? { accountoid: accountOid } : {} }),
    (d) => (typesByAccount.value = { ...typesByAccount.value, [accountOid]: d.types }),
  );

export const loadCostCenters = (typeOid: string) =>
  lookup(
    "costcenters",
    `cc:${typeOid}`,
    api.costCenters.response,
    () => call(api.costCenters, { query: typeOid ? { oid: typeOid } : {} }),
    (d) => (costCentersByType.value = { ...costCentersByType.value, [typeOid]: d.costcenters }),
  );

export async function loadCodes(typeOid: string, ccoid: string): Promise<void> {
  const q = { oid: typeOid || undefined, ccoid };
  await Promise.all([
    lookup(
      "ledgercodes",
      `gl:${ccoid}`,
      api.ledgers.response,
      () => call(api.ledgers, { query: q }),
      (d) => {
        ledgersByCc.value = { ...ledgersByCc.value, [ccoid]: d.ledgers };
      },
    ),
    lookup(
      "projectcodes",
      `prj:${ccoid}`,
      api.projectCodes.response,
      () => call(api.projectCodes, { query: q }),
      (d) => (projectsByCc.value = { ...projectsByCc.value, [ccoid]: d.projectcodes }),
    ),
  ]);
}

export function currentType() {
  const d = draft.value;
  return (typesByAccount.value[d.accountOid ?? ""] ?? []).find((x) => x.oid === d.typeOid) ?? null;
}

// ---- Create request (spec §2, §4, §5) ----

/** spec §8: missing receipts block a new request (error banner) before the form opens. */
export async function startCreate(): Promise<void> {
  try {
    const r = await call(api.canCreate);
    if (r.result !== 1) {
      pushBanner(r.message ?? t("request.cannotRequest"));
      return;
    }
  } catch (err) {
    // Offline the form still opens on cached lookups; the server checks again on submit.
    if (err instanceof ApiError) return pushBanner(messageOf(err));
  }
  formError.value = null;
  draft.value = emptyDraft();
  openSheet({ kind: "create" });
  await Promise.all([loadAccounts(), loadCurrencies()]);
  if (!draft.value.accountOid && accounts.value.length) await setAccount(accounts.value[0].oid);
}

function patch(p: Partial<Draft>): void {
  draft.value = { ...draft.value, ...p };
  formError.value = null;
}

export async function setAccount(oid: string): Promise<void> {
  const acc = accounts.value.find((a) => a.oid === oid);
  const d = draft.value;
  draft.value = {
    ...emptyDraft(acc?.currency ?? d.currency),
    accountOid: oid,
    purpose: d.purpose,
    vendor: d.vendor,
    url: d.url,
    amountText: d.amountText,
  };
  formError.value = null;
  await loadTypes(oid);
}

/** spec §4: changing type resets cost center, GL code and project. */
export async function setType(oid: string): Promise<void> {
  patch({ typeOid: oid, costCenterOid: null, GLOid: null, projectOid: null });
  const type = currentType();
  if (type?.isRecurring) patch({ budgetMode: true });
  else if (type && !type.allowBudget) patch({ budgetMode: false, plan: null });
  await loadCostCenters(oid);
}

/** spec §4: changing cost center reloads GL and project lists and resets invalid choices. */
export async function setCostCenter(oid: string | null): Promise<void> {
  patch({ costCenterOid: oid });
  if (!oid) return patch({ GLOid: null, projectOid: null });
  await loadCodes(draft.value.typeOid ?? "", oid);
  const keep = (list: Code[] | undefined, v: string | null) =>
    v && list?.some((c) => c.oid === v) ? v : null;
  patch({
    GLOid: keep(ledgersByCc.value[oid], draft.value.GLOid),
    projectOid: keep(projectsByCc.value[oid], draft.value.projectOid),
  });
}

export const setField = patch;

/** The amount the form would send: the budget's total in budget mode (spec §5). */
export function draftAmount(d: Draft = draft.value): number | null {
  if (d.budgetMode) return d.plan ? budgetTotal(generateBudget(d.plan)) : null;
  return d.amountText.trim() ? parseAmount(d.amountText) : null;
}

/** Submit asks for confirmation (spec §2), then creates and submits (spec §4 submit flow). */
export function submitCreate(): void {
  const d = draft.value;
  const type = currentType();
  const amount = draftAmount(d);
  const v = checkCreate({
    typeOid: d.typeOid,
    amount,
    purpose: d.purpose,
    hasBudget: d.budgetMode && !!d.plan,
    url: d.url,
  }, type);
  if (v) {
    formError.value = tv(v);
    return;
  }
  askConfirm({
    message: t("create.confirm"),
    extra: t("create.confirmExtra", {
      amount: formatMoney(amount!, d.currency, locale.value),
      purpose: d.purpose.trim(),
    }),
    showNo: true,
    onYes: () => createAndSubmit(),
  });
}

async function createAndSubmit(): Promise<void> {
  const d = draft.value;
  await busy(async () => {
    let created: ExpenseRequest;
    try {
      created = (await call(api.create, {
        body: {
          expenseRequest: {
            accountOid: d.accountOid,
            typeOid: d.typeOid,
            amount: d.budgetMode ? null : draftAmount(d),
            pricingCurrency: d.currency,
            purpose: d.purpose,
            costCenterOid: d.costCenterOid,
            GLOid: d.GLOid,
            projectOid: d.projectOid,
            vendor: d.vendor,
            url: d.url,
            budget: d.budgetMode ? d.plan : null,
          },
        },
      })).expenseRequest;
    } catch (err) {
      formError.value = messageOf(err);
      return;
    }
    try {
      await call(api.submit, { body: { record: created.oid } });
      showNotice(t("create.done", { id: created.id }));
    } catch (err) {
      pushBanner(t("create.notSubmitted", { id: created.id, message: messageOf(err) }));
    }
    closeSheet();
    await refreshRequests();
  });
}

/** Re-reads pwalists (the session action owns it). */
async function refreshRequests(): Promise<void> {
  await refreshLists({ networkFirst: true });
}

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
    (d) => setDetail(oid, { comments: d.comments }),
  );
}

/** After a write: the detail shows the server's answer and the list is refreshed. */
async function applied(r: ExpenseRequest): Promise<void> {
  setDetail(r.oid, { entity: r });
  requestRows.value = requestRows.value.map((x) => x.oid === r.oid ? { ...x, ...r } : x);
  await refreshRequests();
}

export async function addComment(text: string): Promise<boolean> {
  const d = detail.value;
  if (!d || !text.trim()) return false;
  const ok = await busy(async () => {
    try {
      await call(api.addComment, { body: { oid: d.oid, comment: text.trim() } });
      return true;
    } catch (err) {
      pushBanner(messageOf(err));
      return false;
    }
  });
  if (ok) await loadComments(d.oid);
  return ok === true;
}

export async function deleteComment(commentOid: string): Promise<void> {
  const d = detail.value;
  if (!d) return;
  await busy(async () => {
    try {
      await call(api.deleteComment, { query: { record: commentOid } });
    } catch (err) {
      pushBanner(messageOf(err));
    }
  });
  await loadComments(d.oid);
}

/** spec §4: cancel asks for confirmation. */
export function confirmCancel(oid: string): void {
  askConfirm({
    message: t("detail.cancelConfirm"),
    extra: t("detail.cancelExtra"),
    showNo: true,
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

// ---- Edit request (spec §2, §4, §5) ----

export async function startEdit(): Promise<void> {
  const e = detail.value?.entity;
  if (!e) return;
  formError.value = null;
  editDraft.value = {
    oid: e.oid,
    typeOid: e.typeOid,
    purpose: e.purpose,
    costCenterOid: e.costCenterOid,
    GLOid: e.GLOid,
    projectOid: e.projectOid,
  };
  openSheet({ kind: "edit" });
  await loadCostCenters(e.typeOid);
  if (e.costCenterOid) await loadCodes(e.typeOid, e.costCenterOid);
}

export async function setEditCostCenter(oid: string | null): Promise<void> {
  const d = editDraft.value;
  if (!d) return;
  editDraft.value = { ...d, costCenterOid: oid };
  formError.value = null;
  if (!oid) return void (editDraft.value = { ...editDraft.value!, GLOid: null, projectOid: null });
  await loadCodes(d.typeOid, oid);
  const cur = editDraft.value!;
  const keep = (list: Code[] | undefined, v: string | null) =>
    v && list?.some((c) => c.oid === v) ? v : null;
  editDraft.value = {
    ...cur,
    GLOid: keep(ledgersByCc.value[oid], cur.GLOid),
    projectOid: keep(projectsByCc.value[oid], cur.projectOid),
  };
}

export function patchEdit(p: Partial<NonNullable<typeof editDraft.value>>): void {
  if (editDraft.value) editDraft.value = { ...editDraft.value, ...p };
  formError.value = null;
}

/**
 * spec §4 submit flow for edits: when the change needs a new approval the person is asked
 * whether to cancel and recreate it; otherwise the request is modified directly.
 */
export async function saveEdit(): Promise<void> {
  const d = editDraft.value;
  if (!d) return;
  const v = checkEdit(d);
  if (v) {
    formError.value = tv(v);
    return;
  }
  const body = {
    oid: d.oid,
    purpose: d.purpose,
    costCenterOid: d.costCenterOid,
    GLOid: d.GLOid,
    projectOid: d.projectOid,
  };
  const save = (reissue: boolean) =>
    busy(async () => {
      try {
        const r = reissue
          ? await call(api.reissueApproval, { body: { expenseRequest: body } })
          : await call(api.modify, { body: { record: body } });
        closeSheet();
        showNotice(t("edit.saved"));
        await applied(r.expenseRequest);
      } catch (err) {
        formError.value = messageOf(err);
      }
    });
  let sameAP = true;
  try {
    sameAP = (await call(api.checkNeedRecreate, { body: { expenseRequest: body } })).sameAP;
  } catch (err) {
    formError.value = messageOf(err);
    return;
  }
  if (sameAP) return void (await save(false));
  askConfirm({
    message: t("edit.reissueConfirm"),
    showNo: true,
    onYes: () => void save(true),
  });
}
