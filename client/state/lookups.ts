import { computed, signal } from "@preact/signals-react";
import type { Account, Code, RequestType } from "../shared/contract/requests.ts";
import type { ComboItem, VatCode } from "../shared/contract/vat.ts";
import { inLanguage, listsInLanguage } from "../shared/org_words.ts";
import { locale } from "../i18n/index.ts";

// The request forms' lookups (spec §2 field selector), keyed by what they depend on, as
// answered: with the organisation's words of every language it gave (client/shared/org_words.ts). Actions write
// these; screens read the computed ones below, in the language shown.
export const accountsAnswer = signal<Account[]>([]);
export const typesAnswer = signal<Record<string, RequestType[]>>({});
/** Cost centers by type oid ('' = all). */
export const costCentersAnswer = signal<Record<string, Code[]>>({});
/** GL codes and projects by cost center oid. */
export const ledgersAnswer = signal<Record<string, Code[]>>({});
export const projectsAnswer = signal<Record<string, Code[]>>({});

// The lookups in the language shown (spec §3 labels): a language switch in Options re-renders
// them at once, from the same cached answers.
export const accounts = computed(() =>
  accountsAnswer.value.map((a) => inLanguage(a, locale.value))
);
export const typesByAccount = computed(() => listsInLanguage(typesAnswer.value, locale.value));
export const costCentersByType = computed(() =>
  listsInLanguage(costCentersAnswer.value, locale.value)
);
export const ledgersByCc = computed(() => listsInLanguage(ledgersAnswer.value, locale.value));
export const projectsByCc = computed(() => listsInLanguage(projectsAnswer.value, locale.value));

/** Lookups of the VAT panel (spec §7 pwavatcodes, pwareceipttypes, pwaaccountingcodes). */
// As answered, with the organisation's words of every language (client/shared/org_words.ts)...
export const vatCodesAnswer = signal<VatCode[]>([]);
export const receiptTypesAnswer = signal<ComboItem[]>([]);
export const accountingCodesAnswer = signal<ComboItem[]>([]);
// ...and in the language shown: a switch in Options re-renders an open VAT panel at once.
export const vatCodes = computed(() =>
  vatCodesAnswer.value.map((c) => inLanguage(c, locale.value))
);
export const receiptTypes = computed(() =>
  receiptTypesAnswer.value.map((c) => inLanguage(c, locale.value))
);
export const accountingCodes = computed(() =>
  accountingCodesAnswer.value.map((c) => inLanguage(c, locale.value))
);

// Kept apart from state/requests.ts and state/receipts.ts, which the PIN pad's first load
// carries: the forms' and the VAT panel's chunks bring these.
