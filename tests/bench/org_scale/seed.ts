/**
 * Seeds the scale organisation (org.ts) into a store, through the domain's own writes in bulk:
 * the organisation import; 30,000 accepted requests whose cards the issuer made (createCard,
 * as generateCard asks for them) with their decided approvals (newApproval, three votes);
 * then, stage by stage, `n` card transactions of the organisation (newTransaction, the record
 * an issuer's report makes, written by TransactionRepo.put and link) and more decided requests
 * (200,000 in all at 10⁶). Two callers have their own: u00000 holds one card with 10
 * transactions, u00001 20 cards with 5,000; u00197 (team leads) approves. Every stage adds
 * open approvals for the approve measurement. What is seeded is recorded under
 * ["bench_scale", …], so a cached store grows from where it stopped.
 *
 * Not seeded: the issuer simulator's authorization log (the seeded transactions name
 * authorizations the simulator never made; a real issuer keeps its own) and receipt files
 * (seeded transactions carry nbReceipts 1, nothing is overdue).
 */
import type { Deps } from "../../../server/domain/env.ts";
import { importOrg } from "../../../server/org_sync/import.ts";
import { newApproval } from "../../../server/domain/workflow.ts";
import { newTransaction } from "../../../server/domain/transaction_ingest.ts";
import { cardRecorded } from "../../../server/domain/cards.ts";
import type { RequestRecord } from "../../../server/store/requests.ts";
import type { ApprovalRecord } from "../../../server/store/approvals.ts";
import type { TransactionRecord } from "../../../server/store/transactions.ts";
import type { Authorization } from "../../../server/issuer/authorization.ts";
import type { User } from "../../../server/store/users.ts";
import { emailOf, LEVEL_TEAMS, scaleOrg, USERS } from "./org.ts";

export const CARDS = 30_000;
export const SMALL = emailOf(0);
export const BIG = emailOf(1);
export const APPROVER = emailOf(197);
const BIG_CARDS = 20;
const BIG_TX = 5_000;
const SMALL_TX = 10;
/** Decided requests (beyond the cards' own) at 10⁶ transactions: 200,000 requests in all. */
const EXTRA_REQUESTS_PER_TX = 170_000 / 1_000_000;
/** Open approvals added per stage, for the approve measurement. */
export const OPEN_PER_STAGE = 40;
const DAY = 86_400_000;
const YEAR = 365 * DAY;

const STATE = (k: string) => ["bench_scale", k];

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function commitAll(kv: Deno.Kv, ops: ((op: Deno.AtomicOperation) => void)[]) {
  // Deno KV takes at most 1,000 mutations per atomic operation: callers group ≤ 100 records.
  await Promise.all(ops.map(async (fill) => {
    const op = kv.atomic();
    fill(op);
    const r = await op.commit();
    if (!r.ok) throw new Error("seeding: a write failed");
  }));
}

/** Runs `fill`s `width` at a time. */
async function inWaves(kv: Deno.Kv, ops: ((op: Deno.AtomicOperation) => void)[], width = 8) {
  for (let i = 0; i < ops.length; i += width) await commitAll(kv, ops.slice(i, i + width));
}

function request(
  u: User,
  id: number,
  status: RequestRecord["status"],
  at: number,
  rnd: () => number,
): RequestRecord {
  const amount = Math.round((50 + rnd() * 2_000) * 100) / 100;
  return {
    oid: crypto.randomUUID(),
    id: `R${String(id).padStart(7, "0")}`,
    authorOid: u.oid,
    accountOid: "acc-eur",
    typeOid: "type-travel",
    purpose: `Scale request ${id}`,
    status,
    issueDate: at,
    costCenterOid: "cc-sales",
    costCenter: "Sales",
    GLOid: "gl-travel",
    GLCode: "Travel and accommodation",
    projectOid: "prj-crm",
    projectCode: "CRM rollout",
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
    updatedAt: at,
  };
}

const TYPE = {
  approvalPolicy: [{
    levels: LEVEL_TEAMS.map((t, i) => ({
      level: i + 1,
      actionDescription: `Level ${i + 1}`,
      teamOids: [t],
      quota: 1,
    })),
  }],
};

/** A decided approval (all three levels voted) or an open one (level 1 open). */
function approvalOf(r: RequestRecord, at: number, decided: boolean, voters: string[]) {
  const a: ApprovalRecord = newApproval(r, TYPE, at, 1);
  if (!decided) return a;
  const status = r.status === "rejected" ? "rejected" : "approved";
  return {
    ...a,
    statusCode: status,
    levels: a.levels.map((l) => ({ ...l, statusCode: status, openedAt: at })),
    votes: a.levels.map((l, i) => ({
      userOid: voters[i],
      level: l.level,
      statusCode: status,
      isDelegated: false,
      createdAt: at + (i + 1) * 3_600_000,
    })),
  } as ApprovalRecord;
}

/** A purchase as the issuer reports it: captured a day later (or only authorised). */
function authorization(card: RequestRecord, at: number, rnd: () => number): Authorization {
  const amount = Math.round(500 + rnd() * 20_000);
  const captured = rnd() < 0.95;
  return {
    id: `iauth_seed_${crypto.randomUUID().replace(/-/g, "")}`,
    kind: "purchase",
    cardToken: card.card!.token,
    cardMetadata: { requestOid: card.oid, requestId: card.id, userOid: card.authorOid },
    approved: true,
    declineCode: null,
    reason: null,
    status: captured ? "closed" : "pending",
    merchant: {
      name: `Merchant ${Math.floor(rnd() * 5000)}`,
      city: "Lyon",
      country: "FR",
      mcc: "5812",
    },
    merchantCurrency: "EUR",
    merchantAmount: amount,
    currency: "EUR",
    amount,
    fx: null,
    merchantCaptured: captured ? amount : 0,
    merchantReversed: 0,
    merchantRefunded: 0,
    amountHeld: captured ? 0 : amount,
    amountCaptured: captured ? amount : 0,
    amountReversed: 0,
    amountRefunded: 0,
    threeDS: "not_requested",
    history: [],
    createdAt: at,
    capturedAt: captured ? at + DAY : null,
    updatedAt: at + DAY,
    version: captured ? 2 : 1,
  } as Authorization;
}

/** The organisation and its 30,000 cards (once per store). */
async function seedBase(deps: Deps, log: (s: string) => void) {
  const { store, issuer } = deps;
  const t0 = performance.now();
  await importOrg(store, await scaleOrg(), 1000);
  const users = await store.users.all();
  const byEmail = new Map(users.map((u) => [u.email, u]));
  const approvers = LEVEL_TEAMS.map((t) => users.find((u) => u.teams.includes(t))!.oid);
  log(
    `  organisation: ${users.length} people imported in ${
      ((performance.now() - t0) / 1000).toFixed(0)
    } s`,
  );
  const rnd = random(40);
  const now = deps.now();
  const holders: User[] = [];
  holders.push(byEmail.get(SMALL)!);
  for (let i = 0; i < BIG_CARDS; i++) holders.push(byEmail.get(BIG)!);
  while (holders.length < CARDS) {
    holders.push(byEmail.get(emailOf(2 + Math.floor(rnd() * (USERS - 2))))!);
  }
  const t1 = performance.now();
  for (let i = 0; i < CARDS; i += 100) {
    const batch = await Promise.all(
      holders.slice(i, i + 100).map(async (u, j) => {
        const at = now - YEAR - rnd() * 30 * DAY;
        const r = request(u, i + j + 1, "accepted", at, rnd);
        const card = await issuer.createCard({
          idempotencyKey: `request:${r.oid}`,
          cardholderName: `${u.fname} ${u.lname}`,
          brand: "visa",
          currency: "EUR",
          amount: 10_000_000,
          validUntil: new Date(now + 2 * YEAR).toISOString().slice(0, 10),
          metadata: { requestOid: r.oid, requestId: r.id, userOid: u.oid },
          cardholderId: u.oid,
        });
        const withCard = cardRecorded(r, card, `${u.fname} ${u.lname}`, at);
        return { r: withCard, a: approvalOf(withCard, at, true, approvers) };
      }),
    );
    await commitAll(
      store.kv,
      batch.map(({ r, a }) => (op) => {
        store.requests.put(op, { ...r, approvalOid: a.oid });
        store.approvals.put(op, a);
      }),
    );
    if ((i / 100) % 50 === 49) log(`  cards: ${i + 100} of ${CARDS}`);
  }
  log(`  ${CARDS} cards in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
  await store.kv.set(STATE("requests"), CARDS);
  // The callers' own transactions.
  const all = await cardsOf(deps);
  const small = all.filter((r) => r.authorOid === byEmail.get(SMALL)!.oid);
  const big = all.filter((r) => r.authorOid === byEmail.get(BIG)!.oid);
  await writeTransactions(deps, small, SMALL_TX, rnd);
  await writeTransactions(deps, big, BIG_TX, rnd);
  await store.kv.set(STATE("base"), true);
}

let cardCache: RequestRecord[] | null = null;
/** Every card request of the organisation (read once per process). */
async function cardsOf(deps: Deps): Promise<RequestRecord[]> {
  if (cardCache) return cardCache;
  const out: RequestRecord[] = [];
  for await (
    const e of deps.store.kv.list<RequestRecord>({ prefix: ["request"] }, { batchSize: 1000 })
  ) {
    if (e.value.hasCard) out.push(e.value);
  }
  return cardCache = out;
}

/** `n` transactions on `cards` (random), grouped by holder. */
async function writeTransactions(deps: Deps, cards: RequestRecord[], n: number, rnd: () => number) {
  const { store } = deps;
  const now = deps.now();
  const byUser = new Map<string, TransactionRecord[]>();
  for (let i = 0; i < n; i++) {
    const card = cards[Math.floor(rnd() * cards.length)];
    const at = Math.round(now - 2 * DAY - rnd() * (YEAR - 2 * DAY));
    const t = { ...newTransaction(card, authorization(card, at, rnd), at + DAY), nbReceipts: 1 };
    const l = byUser.get(t.userOid) ?? [];
    l.push(t);
    byUser.set(t.userOid, l);
  }
  // ≤ 120 transactions per write (7 mutations each), one holder's next to each other.
  const flat = [...byUser.values()].flat();
  const ops: ((op: Deno.AtomicOperation) => void)[] = [];
  for (let i = 0; i < flat.length; i += 120) {
    const part = flat.slice(i, i + 120);
    ops.push((op) => {
      for (const t of part) store.transactions.link(store.transactions.put(op, t), t);
    });
  }
  await inWaves(store.kv, ops);
}

/** Grows the store to `n` transactions of the organisation (beyond the callers'). */
export async function growTo(deps: Deps, n: number, log: (s: string) => void): Promise<void> {
  const { store } = deps;
  if (!(await store.kv.get(STATE("base"))).value) await seedBase(deps, log);
  const users = await store.users.all();
  const approvers = LEVEL_TEAMS.map((t) => users.find((u) => u.teams.includes(t))!.oid);
  const have = (await store.kv.get<number>(STATE("transactions"))).value ?? 0;
  const rnd = random(1000 + have);
  if (have < n) {
    const t0 = performance.now();
    const cards = (await cardsOf(deps)).filter((r) =>
      r.card && r.authorOid !== users.find((u) => u.email === BIG)!.oid &&
      r.authorOid !== users.find((u) => u.email === SMALL)!.oid
    );
    for (let done = have; done < n;) {
      const k = Math.min(50_000, n - done);
      await writeTransactions(deps, cards, k, rnd);
      done += k;
      await store.kv.set(STATE("transactions"), done);
      if (n - have > 100_000) log(`  transactions: ${done} of ${n}`);
    }
    log(`  transactions ${have} → ${n} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    // Decided requests (history of the approvers' teams) in proportion.
    const t1 = performance.now();
    const reqHave = (await store.kv.get<number>(STATE("requests"))).value ?? CARDS;
    const reqWant = CARDS + Math.round(n * EXTRA_REQUESTS_PER_TX);
    const now = deps.now();
    for (let i = reqHave; i < reqWant; i += 200) {
      const rows = Array.from({ length: Math.min(200, reqWant - i) }, (_, j) => {
        const u = users[Math.floor(rnd() * users.length)];
        const at = now - rnd() * YEAR;
        const x = rnd();
        const status = x < 0.6 ? "accepted" : x < 0.8 ? "rejected" : x < 0.9 ? "cancelled" : "new";
        const r = request(u, i + j + 1, status, at, rnd);
        return { r, a: status === "new" ? null : approvalOf(r, at, true, approvers) };
      });
      // A request and its approval are some 30 mutations: 25 of them per write.
      const ops: ((op: Deno.AtomicOperation) => void)[] = [];
      for (let k = 0; k < rows.length; k += 25) {
        ops.push((op) => {
          for (const { r, a } of rows.slice(k, k + 25)) {
            store.requests.put(op, { ...r, approvalOid: a?.oid ?? null });
            if (a) store.approvals.put(op, a);
          }
        });
      }
      await commitAll(store.kv, ops);
    }
    await store.kv.set(STATE("requests"), Math.max(reqHave, reqWant));
    log(`  requests ${reqHave} → ${reqWant} in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
  }
  // Open approvals for this stage's approve measurement (submitted requests, level 1 open).
  const open = await Array.fromAsync(
    store.kv.list({ prefix: ["bench_scale", "open"] }),
  );
  const want = OPEN_PER_STAGE - open.length;
  if (want > 0) {
    const now = deps.now();
    const rows = Array.from({ length: want }, (_, j) => {
      const u = users[2 + Math.floor(rnd() * (users.length - 300))];
      const r = request(u, 9_000_000 + have + j, "requested", now - j, rnd);
      return { r, a: approvalOf(r, now - j, false, approvers) };
    });
    await commitAll(
      store.kv,
      rows.map(({ r, a }) => (op) => {
        store.requests.put(op, { ...r, approvalOid: a.oid });
        store.approvals.put(op, a);
        op.set(["bench_scale", "open", a.oid], r.oid);
      }),
    );
  }
}

/** The open approvals seeded for the approve measurement; each taken once. */
export async function takeOpen(deps: Deps): Promise<string | null> {
  for await (const e of deps.store.kv.list({ prefix: ["bench_scale", "open"] }, { limit: 1 })) {
    await deps.store.kv.delete(e.key);
    return String(e.key[2]);
  }
  return null;
}

/** How many transactions the store holds for the organisation (beyond the callers'). */
export async function seeded(deps: Deps): Promise<number> {
  return (await deps.store.kv.get<number>(STATE("transactions"))).value ?? 0;
}
