import assert from "node:assert/strict";
import { DEMO, type TestApi, testApp } from "../helpers.ts";
import { type Job, JOB_DUE } from "../../server/jobs/jobs.ts";
import { PUSH_SEND, type PushSendData } from "../../server/push/outbox.ts";
import {
  isoWeek,
  pushReminders,
  runReminders,
  sendDigests,
} from "../../server/reminders/receipts.ts";
import type { TransactionRecord } from "../../server/store/transactions.ts";
import { transactionRecord } from "./transaction_records.ts";

// spec §5 missing receipts: reminders that stop when done (server/reminders/receipts.ts), with
// a fake clock (deps.now). Runs on Deno KV and on PostgreSQL (tests/run.ts PG_SUITES).

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A Wednesday noon, UTC: a fixed point the weeks are counted from. */
const T0 = Date.UTC(2026, 10, 18, 12);

async function userOf(api: TestApi, email = DEMO.employee) {
  const u = await api.deps.store.users.byEmail(email);
  assert.ok(u);
  return u;
}

async function subscribe(api: TestApi, userOid: string, deviceId = "device-reminders-1") {
  const op = api.deps.store.pushSubs.put(api.kv.atomic(), {
    userOid,
    deviceId,
    subscription: {
      endpoint: `https://fcm.googleapis.com/fcm/send/${deviceId}`,
      keys: { p256dh: "p", auth: "a" },
    },
    isIOS: false,
    at: T0,
  });
  assert.ok((await op.commit()).ok);
}

async function put(api: TestApi, t: TransactionRecord) {
  assert.ok((await api.deps.store.transactions.put(api.kv.atomic(), t).commit()).ok);
  return t;
}

/** A purchase captured at `at` without receipt (the reminder falls due 24 h later). */
const purchase = (userOid: string, at: number, over: Partial<TransactionRecord> = {}) =>
  transactionRecord(userOid, { createdAt: at, capturedAt: at, updatedAt: at, ...over });

/** The push jobs waiting (the jobs wing's "push.send"). */
async function pushJobs(api: TestApi): Promise<PushSendData[]> {
  const out: PushSendData[] = [];
  for await (const e of api.kv.list<Job<PushSendData>>({ prefix: [JOB_DUE] })) {
    if (e.value.kind === PUSH_SEND) out.push(e.value.data);
  }
  return out;
}

async function digests(api: TestApi, email = DEMO.employee) {
  return await api.deps.messages.list({ to: email, filter: (m) => m.purpose === "receipt-digest" });
}

Deno.test("[reminders] a missing receipt is pushed once, after RECEIPT_REMINDER_HOURS", async () => {
  const api = await testApp();
  try {
    const u = await userOf(api);
    await subscribe(api, u.oid);
    const t = await put(api, purchase(u.oid, T0));
    api.deps.now = () => T0 + 23 * HOUR;
    assert.equal(await pushReminders(api.deps), 0, "not before 24 h");
    api.deps.now = () => T0 + 24 * HOUR + 60_000;
    assert.equal(await pushReminders(api.deps), 1);
    const jobs = await pushJobs(api);
    assert.equal(jobs.length, 1);
    const p = JSON.parse(jobs[0].payload);
    assert.equal(p.title, "Receipt missing");
    assert.equal(p.body, "Add the receipt for €12.50 at Café de la Gare (11/18/2026)");
    assert.equal(p.url, `/?open=transaction:${t.oid}`);
    // Later runs, the same day and the days after: never again for that transaction.
    for (const h of [25, 30, 49, 24 * 5]) {
      api.deps.now = () => T0 + h * HOUR;
      assert.equal(await pushReminders(api.deps), 0, `at +${h} h`);
    }
    assert.equal((await pushJobs(api)).length, 1);
    // RECEIPT_REMINDER_HOURS moves the moment.
    const late = await testApp({ RECEIPT_REMINDER_HOURS: "48" });
    try {
      const v = await userOf(late);
      await subscribe(late, v.oid);
      await put(late, purchase(v.oid, T0));
      late.deps.now = () => T0 + 47 * HOUR;
      assert.equal(await pushReminders(late.deps), 0);
      late.deps.now = () => T0 + 48 * HOUR;
      assert.equal(await pushReminders(late.deps), 1);
    } finally {
      await late.close();
    }
  } finally {
    await api.close();
  }
});

Deno.test("[reminders] nothing is sent once the receipt or a declaration exists", async () => {
  const api = await testApp();
  try {
    const u = await userOf(api);
    await subscribe(api, u.oid);
    const withReceipt = await put(api, purchase(u.oid, T0));
    const declared = await put(api, purchase(u.oid, T0));
    const pending = await put(api, purchase(u.oid, T0));
    // Before the reminder is due, the receipt arrives; a declaration (valid, or still waiting
    // for an approver) is made on the two others.
    const decl = (state: "valid" | "pending") => ({
      what: "Taxi",
      reason: "No printer",
      byOid: u.oid,
      byName: "Emma Employee",
      at: T0 + HOUR,
      state,
    });
    await put(api, { ...withReceipt, nbReceipts: 1 });
    await put(api, { ...declared, declaration: decl("valid") });
    await put(api, { ...pending, declaration: decl("pending") });
    api.deps.now = () => T0 + 3 * DAY;
    assert.deepEqual(await runReminders(api.deps), { pushed: 0, mailed: 0 });
    assert.equal((await pushJobs(api)).length, 0);
    assert.equal((await digests(api)).length, 0);
  } finally {
    await api.close();
  }
});

Deno.test("[reminders] two app instances on one store send each reminder and digest once", async () => {
  const a = await testApp();
  const b = await testApp({}, { kv: a.kv });
  try {
    const u = await userOf(a);
    await subscribe(a, u.oid);
    await put(a, purchase(u.oid, T0));
    await put(a, purchase(u.oid, T0 - DAY));
    for (const api of [a, b]) api.deps.now = () => T0 + 2 * DAY;
    // Both processes run at the same instant, several times over.
    const runs = await Promise.all([
      runReminders(a.deps),
      runReminders(b.deps),
      runReminders(a.deps),
      runReminders(b.deps),
    ]);
    assert.equal(runs.reduce((n, r) => n + r.pushed, 0), 2, JSON.stringify(runs));
    assert.equal(runs.reduce((n, r) => n + r.mailed, 0), 1, JSON.stringify(runs));
    assert.equal((await pushJobs(a)).length, 2);
    assert.equal((await digests(a)).length, 1);
  } finally {
    await a.close(); // b runs on the same store, with no worker of its own
  }
});

Deno.test("[reminders] the weekly digest lists each missing receipt with its link, once a week, in the person's language", async () => {
  const api = await testApp({ PUBLIC_URL: "https://qcard.example.org" });
  try {
    const u = await userOf(api);
    const old = await put(api, purchase(u.oid, T0 - 3 * DAY, { merchantname: "Hôtel du Parc" }));
    const newer = await put(api, purchase(u.oid, T0 - 2 * DAY, { originalAmount: 4_200 }));
    await put(api, purchase(u.oid, T0 - 2 * DAY, { nbReceipts: 1, merchantname: "Has receipt" }));
    await put(api, purchase(u.oid, T0 - HOUR, { merchantname: "Too recent" }));
    await put(api, purchase(u.oid, T0 - 3 * DAY, { transactionStatus: "Refused" }));
    api.deps.now = () => T0;
    assert.equal(await sendDigests(api.deps), 1);
    const [m] = await digests(api);
    assert.equal(m.subject, "QCard: receipts still missing (2)");
    const lines = m.text.split("\n");
    assert.ok(m.text.startsWith(`Hello ${u.fname},`), m.text);
    // Oldest first, each with its link into the app.
    const i = lines.findIndex((l) => l.includes("Hôtel du Parc"));
    assert.equal(lines[i], "- 11/15/2026 · €12.50 · Hôtel du Parc");
    assert.equal(lines[i + 1], `  https://qcard.example.org/?open=transaction:${old.oid}`);
    assert.equal(lines[i + 2], "- 11/16/2026 · €42.00 · Café de la Gare");
    assert.equal(lines[i + 3], `  https://qcard.example.org/?open=transaction:${newer.oid}`);
    assert.doesNotMatch(m.text, /Has receipt|Too recent/);
    // Once a week: later runs of the same ISO week send nothing, the next week sends again.
    for (const at of [T0 + HOUR, T0 + 4 * DAY]) {
      api.deps.now = () => at;
      assert.equal(isoWeek(at), isoWeek(T0));
      assert.equal(await sendDigests(api.deps), 0);
    }
    api.deps.now = () => T0 + 5 * DAY; // Monday
    assert.notEqual(isoWeek(T0 + 5 * DAY), isoWeek(T0));
    assert.equal(await sendDigests(api.deps), 1);
    // In the person's language (the one "too recent" a week ago is now due as well).
    const op = api.kv.atomic().set(["user", u.oid], { ...u, locale: "fr" });
    assert.ok((await op.commit()).ok);
    api.deps.now = () => T0 + 12 * DAY;
    assert.equal(await sendDigests(api.deps), 1);
    const [last] = await digests(api);
    assert.equal(last.subject, "QCard\u00a0: justificatifs encore manquants (3)");
    assert.match(last.text, /^Bonjour /);
  } finally {
    await api.close();
  }
});

Deno.test("[reminders] the ISO week of a date", () => {
  assert.equal(isoWeek(Date.UTC(2026, 0, 1)), "2026-W01"); // a Thursday
  assert.equal(isoWeek(Date.UTC(2027, 0, 1)), "2026-W53"); // a Friday
  assert.equal(isoWeek(Date.UTC(2026, 10, 23)), "2026-W48"); // a Monday
  assert.equal(isoWeek(Date.UTC(2026, 10, 22, 23, 59)), "2026-W47"); // the Sunday before
});
