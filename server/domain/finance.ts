import { forbidden } from "../errors.ts";
import type { Deps } from "./env.ts";
import type { Team } from "../store/org.ts";
import type { User } from "../store/users.ts";
import { hasLeft } from "./leavers.ts";

/**
 * The finance role (docs/export.md): a member of a team the organisation file marks `finance`
 * (a SCIM group is a team, so an identity provider grants and takes it by membership) may
 * export the organisation's card spend — of every account, or of the accounts its teams name.
 * Someone who left has no team, hence no role.
 */
export interface FinanceScope {
  /** null: every account. */
  accounts: ReadonlySet<string> | null;
}

/**
 * The person's finance scope, or null when they have none; `orgVersion`: the organisation's
 * version entry when the caller read it already (pwalists).
 */
export async function financeScope(
  deps: Deps,
  user: User,
  orgVersion?: Deno.KvEntryMaybe<unknown>,
): Promise<FinanceScope | null> {
  if (hasLeft(user) || !user.teams.length) return null;
  const { teams } = await deps.store.orgCache.snapshot(orgVersion);
  const theirs = user.teams.map((oid) => teams.get(oid)).filter((t): t is Team => !!t?.finance);
  if (!theirs.length) return null;
  if (theirs.some((t) => !t.finance!.accountOids)) return { accounts: null };
  return { accounts: new Set(theirs.flatMap((t) => t.finance!.accountOids!)) };
}

/** The scope, or 403 for anyone without the role. */
export async function requireFinance(deps: Deps, user: User): Promise<FinanceScope> {
  const scope = await financeScope(deps, user);
  if (!scope) throw forbidden("not_finance", "Only the finance team may export accounting data");
  return scope;
}
