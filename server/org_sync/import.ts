import type { Org } from "../org/schema.ts";
import type { Store } from "../store/mod.ts";
import { bumpOrg } from "../store/org_version.ts";
import type { User } from "../store/users.ts";
import { hashSecret, normaliseAnswer } from "../secrets.ts";

/** KV allows a bounded number of mutations per atomic operation: write in chunks. */
const CHUNK = 200;

type Write = [Deno.KvKey, unknown];

/**
 * Stores an organisation (demo or an operator's file). Existing users keep their oid and
 * devices; everything else is replaced by the file's content. Secret answers are hashed.
 */
export async function importOrg(
  store: Store,
  org: Org,
  iterations: number,
): Promise<void> {
  const writes: Write[] = [
    [["org", "meta"], {
      organisation: org.organisation,
      settings: org.settings,
    }],
  ];
  const add = <T>(collection: string, items: T[], key: (t: T) => string) => {
    for (const it of items) writes.push([[collection, key(it)], it]);
  };
  add("secretq", org.secretQuestions, (q) => q.oid);
  add("team", org.teams, (t) => t.oid);
  add("account", org.accounts, (a) => a.oid);
  add("rtype", org.requestTypes, (t) => t.oid);
  add("costcenter", org.costCenters, (c) => c.oid);
  add("ledger", org.ledgers, (l) => l.oid);
  add("project", org.projectCodes, (p) => p.oid);
  add("currency", org.currencies, (c) => c.value);
  add("country", org.countries, (c) => c.id);
  add("vatcode", org.vatCodes, (v) => v.oid);
  add("receipttype", org.receiptTypes, (r) => r.value);
  add("acccode", org.accountingCodes, (a) => a.value);

  for (let i = 0; i < writes.length; i += CHUNK) {
    // Each chunk bumps the organisation's version: kept snapshots follow (org_cache.ts).
    const op = bumpOrg(store.kv.atomic());
    for (const [k, v] of writes.slice(i, i + CHUNK)) op.set(k, v);
    await commit(op);
  }

  for (const u of org.users) {
    const existing = await store.users.byEmail(u.email);
    const user: User = {
      oid: existing?.oid ?? crypto.randomUUID(),
      email: u.email,
      fname: u.fname,
      lname: u.lname,
      locale: u.locale,
      canRequest: u.canRequest,
      isApprover: u.isApprover,
      teams: u.teams,
      secret: {
        questionOid: u.secret.questionOid,
        answer: await hashSecret(normaliseAnswer(u.secret.answer), iterations),
      },
    };
    await commit(store.users.put(store.kv.atomic(), user));
  }
}

async function commit(op: Deno.AtomicOperation): Promise<void> {
  const r = await op.commit();
  if (!r.ok) throw new Error("organisation import: a write failed");
}
