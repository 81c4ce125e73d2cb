/**
 * Bench data: many expense requests for one user, written straight into the store (no
 * workflow, no events), as an organisation with a long history would have them.
 */
import type { Deps } from "../../server/domain/env.ts";
import { parseConfig } from "../../server/config.ts";
import { makeDeps, seedIfEmpty } from "../../server/app/boot.ts";
import type { RequestRecord } from "../../server/store/requests.ts";
import type { StatusCode } from "../../client/shared/contract/requests.ts";

/** Cost centers of the demo organisation with labels and the codes that belong to them. */
const CENTERS = [
  {
    oid: "cc-sales",
    label: "Sales",
    ledgers: [["gl-travel", "Travel and accommodation"], [
      "gl-entertainment",
      "Receptions and entertainment",
    ], ["gl-software", "Software licences and subscriptions"]],
    projects: [["prj-crm", "CRM rollout"], ["prj-expansion", "Benelux expansion"]],
  },
  {
    oid: "cc-marketing",
    label: "Marketing",
    ledgers: [["gl-advertising", "Advertising"], [
      "gl-entertainment",
      "Receptions and entertainment",
    ], ["gl-software", "Software licences and subscriptions"]],
    projects: [["prj-brand", "Brand refresh"], ["prj-expansion", "Benelux expansion"]],
  },
  {
    oid: "cc-it",
    label: "IT",
    ledgers: [["gl-hardware", "IT hardware"], [
      "gl-software",
      "Software licences and subscriptions",
    ], [
      "gl-travel",
      "Travel and accommodation",
    ]],
    projects: [["prj-crm", "CRM rollout"], ["prj-cloud", "Cloud migration"]],
  },
  {
    oid: "cc-admin",
    label: "Administration",
    ledgers: [["gl-office", "Office supplies"], ["gl-travel", "Travel and accommodation"], [
      "gl-hardware",
      "IT hardware",
    ]],
    projects: [["prj-general", "General running costs"]],
  },
] as const;

const PURPOSES = [
  "Train to Brussels, customer workshop",
  "Hotel Amsterdam, trade fair",
  "Flight Paris–Berlin, quarterly review",
  "Team dinner after product launch",
  "CRM licences, annual renewal",
  "Laptop replacement",
  "Printer toner and paper",
  "Taxi to the airport",
  "Conference ticket, DevWorld",
  "Client lunch",
  "Monitor for new starter",
  "Online advertising campaign",
  "Coffee machine service",
  "Car rental, regional visits",
  "Cloud hosting, monthly invoice",
];

/** A small deterministic generator, so every bench run sees the same data. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function statusOf(x: number): StatusCode {
  if (x < 0.7) return "requested";
  if (x < 0.85) return "accepted";
  if (x < 0.93) return "rejected";
  return "cancelled";
}

/**
 * Writes `n` requests (ids R000001…) for the user with `email`, issue dates spread over the
 * past year, about 5 % of them above 10,000. Returns the records written.
 */
export async function seedRequests(
  deps: Deps,
  email: string,
  n: number,
): Promise<RequestRecord[]> {
  const { store } = deps;
  const user = await store.users.byEmail(email);
  if (!user) throw new Error(`no user ${email}`);
  const rnd = random(20_000 + n);
  const now = deps.now();
  const year = 365 * 24 * 3600 * 1000;
  const recs: RequestRecord[] = [];
  for (let i = 1; i <= n; i++) {
    const cc = CENTERS[Math.floor(rnd() * CENTERS.length)];
    const [glOid, gl] = cc.ledgers[Math.floor(rnd() * cc.ledgers.length)];
    const [prjOid, prj] = cc.projects[Math.floor(rnd() * cc.projects.length)];
    const large = rnd() < 0.05;
    const amount = large
      ? Math.round(10_000 + rnd() * 40_000)
      : Math.round((20 + rnd() * 4_980) * 100) / 100;
    const issueDate = Math.round(now - rnd() * year);
    recs.push({
      oid: crypto.randomUUID(),
      id: `R${String(i).padStart(6, "0")}`,
      authorOid: user.oid,
      accountOid: "acc-eur",
      typeOid: "type-travel",
      purpose: `${PURPOSES[Math.floor(rnd() * PURPOSES.length)]} #${i}`,
      status: statusOf(rnd()),
      issueDate,
      costCenterOid: cc.oid,
      costCenter: cc.label,
      GLOid: glOid,
      GLCode: gl,
      projectOid: prjOid,
      projectCode: prj,
      vendor: "",
      url: "",
      amount,
      currency: "EUR",
      budgetPlan: null,
      budget: [],
      approvalOid: null,
      hasCard: false,
      openCard: false,
      cardStatusCode: null,
      approverNote: null,
      archive: false,
      updatedAt: issueDate,
    });
  }
  const BATCH = 50;
  for (let i = 0; i < recs.length; i += BATCH) {
    let op = store.kv.atomic();
    for (const r of recs.slice(i, i + BATCH)) op = store.requests.put(op, r);
    const res = await op.commit();
    if (!res.ok) throw new Error(`seeding requests failed at ${i}`);
  }
  // Keep the request-number counter past the seeded ids, so a new request gets a fresh id.
  const counter = await store.requests.counter();
  if ((counter.value ?? 0) < n) {
    const res = await store.requests.bumpCounter(store.kv.atomic(), {
      ...counter,
      value: n - 1,
    } as Deno.KvEntryMaybe<number>).commit();
    if (!res.ok) throw new Error("bumping the request counter failed");
  }
  return recs;
}

/** Seeds the store `env` names (the demo organisation, then `n` requests of `email`), closed. */
export async function seedStore(env: Record<string, string>, email: string, n: number) {
  const deps = await makeDeps(parseConfig(env), undefined, { log: () => {} });
  await seedIfEmpty(deps);
  await seedRequests(deps, email, n);
  deps.store.kv.close();
}
