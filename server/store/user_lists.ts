import type { Store } from "./mod.ts";
import { META_KEY, type OrgMeta } from "./org.ts";
import type { RequestRecord } from "./requests.ts";
import type { TransactionRecord } from "./transactions.ts";

export interface UserLists {
  meta: OrgMeta | null;
  requests: readonly RequestRecord[];
  transactions: readonly TransactionRecord[];
}

/**
 * What pwalists reads for one user (spec §7): the organisation's settings and the user's
 * requests and transactions. The organisation and both list versions come in one store read;
 * a list is read again only when its version moved (list_cache.ts).
 */
export async function readUserLists(store: Store, userOid: string): Promise<UserLists> {
  const [meta, requests, transactions] = await store.kv.getMany<[OrgMeta, unknown, unknown]>([
    META_KEY,
    store.requests.versionKey(userOid),
    store.transactions.versionKey(userOid),
  ]);
  const [r, t] = await Promise.all([
    store.requests.byUser(userOid, requests),
    store.transactions.byUser(userOid, transactions),
  ]);
  return { meta: meta.value, requests: r, transactions: t };
}
