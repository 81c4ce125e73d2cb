/**
 * The organisation's version: every write of its teams, request types, accounts (the
 * import, server/org_sync/import.ts) and of a user (UserRepo.put) bumps it in the same atomic
 * operation. Its versionstamp says whether a kept snapshot is current.
 */
export const ORG_VERSION: Deno.KvKey = ["org_version"];

/** Adds the version bump to a write of organisation data or of a user. */
export function bumpOrg(op: Deno.AtomicOperation): Deno.AtomicOperation {
  // Any write gives the key a new versionstamp; a plain value (not a KvU64) reads as JSON.
  return op.set(ORG_VERSION, Date.now());
}
