import type { ExpenseRequest } from "../shared/contract/requests.ts";
import { requests as api } from "../shared/contract/requests.ts";
import { ApiError, call, NetworkError, UnavailableError } from "../api/http.ts";
import { locale, t, type TranslationKey } from "../i18n/index.ts";
import { formatLocale, formatMoney } from "../i18n/display.ts";
import { budgetTotal, generateBudget, planOfLines } from "../shared/budget.ts";
import { parseAmount } from "../shared/money.ts";
import { requestWords } from "../lib/words.ts";
import {
  checkCreateFields,
  checkEdit,
  type CreateField,
  type Violation,
  violationParams,
} from "../shared/request_rules.ts";
import {
  detail,
  type Draft,
  draft,
  editDraft,
  emptyDraft,
  fieldErrors,
  formError,
  refusedSubmits,
} from "../state/requests.ts";
import { accounts, typesByAccount } from "../state/lookups.ts";
import { transactionAttention } from "../state/session.ts";
import { askConfirm, closeSheet, openSheet, pushBanner, showNotice } from "../state/ui.ts";
import { busy } from "./busy.ts";
import {
  codesForCostCenter,
  loadAccounts,
  loadCodes,
  loadCostCenters,
  loadCurrencies,
  loadTypes,
} from "./lookups.ts";
import { messageOf } from "./messages.ts";
import { editBody, openEdit } from "./edit_form.ts";
import { changed } from "./changes.ts";
import { applied } from "./request_applied.ts";

// The create and edit request forms (spec §2, §4, §5).

/** A rule's message; its amounts as money in the form's currency. */
const tv = (v: Violation) =>
  t(
    v.key as TranslationKey,
    violationParams(v, (n) => formatMoney(n, draft.value.currency, locale.value)),
  );

export function currentType() {
  const d = draft.value;
  return (typesByAccount.value[d.accountOid ?? ""] ?? []).find((x) => x.oid === d.typeOid) ?? null;
}

// ---- Create request (spec §2, §4, §5) ----

/**
 * spec §8: missing receipts block a new request (error banner) before the form opens; the
 * banner offers to add a receipt when transactions need one (spec §5).
 */
export async function startCreate(): Promise<void> {
  try {
    const r = await call(api.canCreate);
    if (r.result !== 1) {
      pushBanner(
        r.message ?? t("request.cannotRequest"),
        transactionAttention.value > 0 ? "receipt" : undefined,
      );
      return;
    }
  } catch (err) {
    // Offline the form still opens on cached lookups; the server checks again on submit.
    if (err instanceof ApiError) return pushBanner(messageOf(err));
  }
  formError.value = null;
  fieldErrors.value = {};
  draft.value = emptyDraft();
  openSheet({ kind: "create" });
  typesLoad = (async () => {
    await Promise.all([loadAccounts(), loadCurrencies()]);
    if (!draft.value.accountOid && accounts.value.length) {
      await setAccount(accounts.value[0].oid);
    }
  })();
  await typesLoad;
}

/** The form's accounts and types being read (the Type selector waits for them). */
let typesLoad: Promise<void> | null = null;

/**
 * Resolves once the types of the chosen account are known: a Type tapped while they are
 * still on their way opens with them, not with "Nothing to choose".
 */
export async function typesReady(): Promise<void> {
  await typesLoad?.catch(() => {});
}

/** Which field's message an edit answers (it goes once the person changes that field). */
const FIELD_OF: Partial<Record<keyof Draft, CreateField>> = {
  typeOid: "type",
  amountText: "amount",
  plan: "amount",
  budgetMode: "amount",
  purpose: "purpose",
  url: "url",
};

function patch(p: Partial<Draft>): void {
  draft.value = { ...draft.value, ...p };
  formError.value = null;
  const touched = Object.keys(p).map((k) => FIELD_OF[k as keyof Draft]).filter(Boolean);
  if (touched.some((f) => fieldErrors.value[f!])) {
    const next = { ...fieldErrors.value };
    for (const f of touched) delete next[f!];
    fieldErrors.value = next;
  }
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
  const load = loadTypes(oid).then(() => {});
  typesLoad = load;
  await load;
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
  patch(await codesForCostCenter(draft.value.typeOid ?? "", oid, draft.value));
}

export const setField = patch;

/** The amount the form would send: the budget's total in budget mode (spec §5). */
export function draftAmount(d: Draft = draft.value): number | null {
  if (d.budgetMode) return d.plan ? budgetTotal(generateBudget(d.plan)) : null;
  return d.amountText.trim() ? parseAmount(d.amountText) : null;
}

/** What the form sends, on creation and on a draft's edit alike (spec §5: the same rules). */
function requestFields(d: Draft) {
  return {
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
  };
}

/**
 * Submit asks for confirmation (spec §2), then creates and submits (spec §4 submit flow).
 * spec §5 violations are shown all at once, each under its field.
 */
/** spec §5 create rules on the form: every message under its field; false when any. */
function formIsValid(d: Draft): boolean {
  const found = checkCreateFields({
    typeOid: d.typeOid,
    amount: draftAmount(d),
    purpose: d.purpose,
    hasBudget: d.budgetMode && !!d.plan,
    url: d.url,
  }, currentType());
  fieldErrors.value = Object.fromEntries(
    Object.entries(found).map(([f, v]) => [f, tv(v)]),
  );
  formError.value = null;
  if (!Object.keys(found).length) return true;
  refusedSubmits.value++;
  return false;
}

export function submitCreate(): void {
  const d = draft.value;
  const amount = draftAmount(d);
  if (!formIsValid(d)) return;
  askConfirm({
    message: t("create.confirm"),
    extra: t("create.confirmExtra", {
      amount: formatMoney(amount!, d.currency, locale.value),
      purpose: d.purpose.trim(),
    }),
    showNo: true,
    yesLabel: t("create.submit"),
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
          expenseRequest: requestFields(d),
        },
      })).expenseRequest;
    } catch (err) {
      // Offline a request is not queued (creating one is checked and numbered by the server):
      // the form stays as typed and says so above its Submit (spec §1 offline).
      formError.value = err instanceof NetworkError && !(err instanceof UnavailableError)
        ? t("create.offline")
        : messageOf(err);
      return;
    }
    try {
      await call(api.submit, { body: { record: created.oid } });
      showNotice(t("create.done", { what: requestWords(created, formatLocale()) }));
    } catch (err) {
      pushBanner(
        t("create.notSubmitted", {
          what: requestWords(created, formatLocale()),
          message: messageOf(err),
        }),
      );
    }
    closeSheet();
    await changed("request", created.oid);
  });
}

// ---- Edit request (spec §2, §4, §5) ----

export async function startEdit(): Promise<void> {
  const e = detail.value?.entity;
  if (!e) return;
  if (e.statusCode === "new") return await startDraftEdit(e);
  await openEdit({
    oid: e.oid,
    typeOid: e.typeOid,
    purpose: e.purpose,
    costCenterOid: e.costCenterOid,
    GLOid: e.GLOid,
    projectOid: e.projectOid,
  });
}

/**
 * A draft (status new) edits everything creation offers, by creation's rules (spec §5
 * create; the edit rule's required codes are for submitted requests): the create form,
 * filled with the draft, saving with pwamodify.
 */
async function startDraftEdit(e: ExpenseRequest): Promise<void> {
  formError.value = null;
  fieldErrors.value = {};
  const plan = planOfLines(e.budget);
  draft.value = {
    accountOid: e.accountOid,
    typeOid: e.typeOid,
    amountText: plan ? "" : String(e.amount),
    currency: e.pricingCurrency,
    purpose: e.purpose,
    costCenterOid: e.costCenterOid,
    GLOid: e.GLOid,
    projectOid: e.projectOid,
    vendor: e.vendor,
    url: e.url,
    budgetMode: !!plan,
    plan,
  };
  editDraft.value = {
    oid: e.oid,
    typeOid: e.typeOid,
    purpose: e.purpose,
    costCenterOid: e.costCenterOid,
    GLOid: e.GLOid,
    projectOid: e.projectOid,
    isDraft: true,
  };
  openSheet({ kind: "edit" });
  typesLoad = (async () => {
    await Promise.all([loadAccounts(), loadCurrencies(), loadTypes(e.accountOid)]);
  })();
  await typesLoad;
  await loadCostCenters(e.typeOid);
  if (e.costCenterOid) await loadCodes(e.typeOid, e.costCenterOid);
}

/** Saves a draft's edit: creation's checks, every message under its field (spec §5). */
export function saveDraftEdit(): void {
  const oid = editDraft.value?.oid;
  if (!oid) return;
  const d = draft.value;
  if (!formIsValid(d)) return;
  void busy(async () => {
    try {
      const r = await call(api.modify, {
        body: {
          record: { oid, ...requestFields(d) },
        },
      });
      editDraft.value = null;
      closeSheet();
      showNotice(t("edit.saved"));
      await applied(r.expenseRequest);
    } catch (err) {
      formError.value = messageOf(err);
    }
  });
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
  const body = editBody(d);
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
    yesLabel: t("approval.recreate"),
    onYes: () => void save(true),
  });
}
