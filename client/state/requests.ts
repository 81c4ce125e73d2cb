import { computed, signal } from "@preact/signals-react";
import type {
  Comment,
  Currency,
  ExpenseRequest,
  ExpenseRow,
  StatusCode,
} from "../shared/contract/requests.ts";
import type { BudgetPlan } from "../shared/budget.ts";

/** spec §2 Requests sub-filters. */
export type SubFilter = "pending" | "accepted" | "rejected" | "cancelled";
export const SUB_FILTERS: readonly SubFilter[] = ["pending", "accepted", "rejected", "cancelled"];

/** Which sub-filter shows a status: new and requested wait together; moved ends like cancelled. */
export function subFilterOf(s: StatusCode): SubFilter {
  if (s === "new" || s === "requested") return "pending";
  if (s === "accepted") return "accepted";
  if (s === "rejected") return "rejected";
  return "cancelled";
}

/** The user's requests as pwalists last gave them (cache first, then network). */
export const requestRows = signal<ExpenseRow[]>([]);
export const subFilter = signal<SubFilter>("pending");

/**
 * spec §2 filter panel: type, cost center, GL code, project code, and author (approval mode
 * only). Empty = no filter.
 */
export interface Filters {
  types: string[];
  costCenters: string[];
  ledgers: string[];
  projects: string[];
  authors: string[];
}
export const NO_FILTERS: Filters = {
  types: [],
  costCenters: [],
  ledgers: [],
  projects: [],
  authors: [],
};
export const filters = signal<Filters>(NO_FILTERS);
export const anyFilter = (f: Filters) =>
  f.types.length + f.costCenters.length + f.ledgers.length + f.projects.length +
      f.authors.length > 0;
export const filtersActive = computed(() => anyFilter(filters.value));

/** What the filters look at, in a request row and in an approval row alike. */
export interface Filterable {
  typeOid: string;
  costCenterOid: string | null;
  GLOid: string | null;
  projectOid: string | null;
  authorOid?: string;
}
export function matches(r: Filterable, f: Filters): boolean {
  const has = (list: string[], v: string | null | undefined) =>
    !list.length || (v != null && list.includes(v));
  return has(f.types, r.typeOid) && has(f.costCenters, r.costCenterOid) &&
    has(f.ledgers, r.GLOid) && has(f.projects, r.projectOid) && has(f.authors, r.authorOid);
}

/** Rows of the active sub-filter that pass the filters. */
export const visibleRows = computed(() => {
  const sf = subFilter.value;
  const f = filters.value;
  return requestRows.value.filter((r) => subFilterOf(r.statusCode) === sf && matches(r, f));
});
export const countsBySubFilter = computed(() => {
  const out: Record<SubFilter, number> = { pending: 0, accepted: 0, rejected: 0, cancelled: 0 };
  for (const r of requestRows.value) out[subFilterOf(r.statusCode)]++;
  return out;
});

// Lookups (spec §2 field selector): client/state/lookups.ts.
export const currencies = signal<Currency[]>([]);

/** The request shown in the detail panel: its row at once, the entity when it arrives. */
export const detail = signal<
  { oid: string; row: ExpenseRow | null; entity: ExpenseRequest | null; comments: Comment[] } | null
>(null);

/** spec §2 create request: the form's state, kept while field selectors are open. */
export interface Draft {
  accountOid: string | null;
  typeOid: string | null;
  amountText: string;
  currency: string;
  purpose: string;
  costCenterOid: string | null;
  GLOid: string | null;
  projectOid: string | null;
  vendor: string;
  url: string;
  budgetMode: boolean;
  plan: BudgetPlan | null;
}
export const emptyDraft = (currency = "EUR"): Draft => ({
  accountOid: null,
  typeOid: null,
  amountText: "",
  currency,
  purpose: "",
  costCenterOid: null,
  GLOid: null,
  projectOid: null,
  vendor: "",
  url: "",
  budgetMode: false,
  plan: null,
});
export const draft = signal<Draft>(emptyDraft());
/** The message under the form: a §5 violation or the server's answer. */
export const formError = signal<string | null>(null);
/** The create form's §5 violations, each shown under its field (all at once). */
/**
 * Counts the submits that found violations: the form focuses the first field in error after
 * each of them — and only then, never while the person is fixing a field.
 */
export const refusedSubmits = signal(0);
export const fieldErrors = signal<Partial<Record<"type" | "amount" | "purpose" | "url", string>>>(
  {},
);

/** spec §2 edit request. */
export interface EditDraft {
  oid: string;
  purpose: string;
  costCenterOid: string | null;
  GLOid: string | null;
  projectOid: string | null;
  typeOid: string;
  /** Set when an approver edits through an approval request (spec §4: it is recreated). */
  approvalOid?: string;
  /** The author's draft (status new): edited in the create form, by creation's rules. */
  isDraft?: boolean;
}
export const editDraft = signal<EditDraft | null>(null);
