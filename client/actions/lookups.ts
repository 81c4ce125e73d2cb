import type * as z from "zod/mini";
import { type Code, requests as api } from "../shared/contract/requests.ts";
import { call } from "../api/http.ts";
import type { CachedStore } from "../db/qcdb.ts";
import { currencies } from "../state/requests.ts";
import {
  accountsAnswer,
  costCentersAnswer,
  ledgersAnswer,
  ledgersByCc,
  projectsAnswer,
  projectsByCc,
  typesAnswer,
} from "../state/lookups.ts";
import { pushBanner } from "../state/ui.ts";
import { cacheFirst } from "./cache.ts";
import { messageOf } from "./messages.ts";

// The request forms' lookups (spec §2 field selector), each through the encrypted cache.

/**
 * One lookup through the cache (spec §1: shown from the cache, then refreshed). `networkFirst`
 * after a write whose result is on screen already: the older cached copy is not shown first.
 */
export async function lookup<S extends z.ZodMiniType>(
  store: CachedStore,
  key: string,
  schema: S,
  fetch: () => Promise<z.infer<S>>,
  show: (data: z.infer<S>) => void,
  networkFirst = false,
): Promise<void> {
  try {
    await cacheFirst({ store, key, schema, fetch, show, networkFirst });
  } catch (err) {
    pushBanner(messageOf(err));
  }
}

export const loadAccounts = () =>
  lookup("lists", "accounts", api.accounts.response, () => call(api.accounts), (d) => {
    accountsAnswer.value = d.accounts;
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
    (d) => (typesAnswer.value = { ...typesAnswer.value, [accountOid]: d.types }),
  );

export const loadCostCenters = (typeOid: string) =>
  lookup(
    "costcenters",
    `cc:${typeOid}`,
    api.costCenters.response,
    () => call(api.costCenters, { query: typeOid ? { oid: typeOid } : {} }),
    (d) => (costCentersAnswer.value = { ...costCentersAnswer.value, [typeOid]: d.costcenters }),
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
        ledgersAnswer.value = { ...ledgersAnswer.value, [ccoid]: d.ledgers };
      },
    ),
    lookup(
      "projectcodes",
      `prj:${ccoid}`,
      api.projectCodes.response,
      () => call(api.projectCodes, { query: q }),
      (d) => (projectsAnswer.value = { ...projectsAnswer.value, [ccoid]: d.projectcodes }),
    ),
  ]);
}

/**
 * spec §4: a new cost center reloads its GL and project lists and drops choices that are
 * not in them (both go when the cost center is cleared). Used by create and edit.
 */
export async function codesForCostCenter(
  typeOid: string,
  ccoid: string | null,
  current: { GLOid: string | null; projectOid: string | null },
): Promise<{ GLOid: string | null; projectOid: string | null }> {
  if (!ccoid) return { GLOid: null, projectOid: null };
  await loadCodes(typeOid, ccoid);
  const keep = (list: Code[] | undefined, v: string | null) =>
    v && list?.some((c) => c.oid === v) ? v : null;
  return {
    GLOid: keep(ledgersByCc.value[ccoid], current.GLOid),
    projectOid: keep(projectsByCc.value[ccoid], current.projectOid),
  };
}
