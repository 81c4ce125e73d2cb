import type { Store } from "./mod.ts";
import { META_KEY, type OrgMeta } from "./org.ts";
import type { RequestRecord } from "./requests.ts";
import type { TransactionRecord } from "./transactions.ts";
import { ORG_VERSION } from "./org_version.ts";

export interface UserLists {
  meta: OrgMeta | null;
  requests: readonly RequestRecord[];
  transactions: readonly TransactionRecord[];
  /** The organisation's version entry, for its kept snapshot (org_cache.ts). */
  orgVersion: Deno.KvEntryMaybe<unknown>;
}

/**
 * What pwalists reads for one user (spec §7): the organisation's settings and the user's
 * requests and transactions. The organisation and both list versions come in one store read;
 * a list is read again only when its version moved (list_cache.ts).
 */
export async function readUserLists(store: Store, userOid: string): Promise<UserLists> {
  const [meta, requests, transactions, orgVersion] = await store.kv.getMany<
    [OrgMeta, unknown, unknown, unknown]
  >([
    META_KEY,
    store.requests.versionKey(userOid),
    store.transactions.versionKey(userOid),
    ORG_VERSION,
  ]);
  const [r, t] = await Promise.all([
    store.requests.byUser(userOid, requests),
    store.transactions.byUser(userOid, transactions),
  ]);
  return { meta: meta.value, requests: r, transactions: t, orgVersion };
}
