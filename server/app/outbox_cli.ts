/**
 * `deno task outbox`: the operators' view of the work waiting on the configured KV (KV_PATH):
 * messages (mail and SMS) and every other job of the jobs wing (server/jobs/: a notification
 * being fanned out, a push to one device…).
 *
 *   deno task outbox                      messages pending, sending and failed, oldest first;
 *                                         then every job, waiting, running and failed
 *   deno task outbox retry ID…            run again now (failed or waiting), attempts reset
 *   deno task outbox retry --all-failed   the same for every failed message and job
 *   deno task outbox discard ID…          give up on a waiting or failed message or job
 *
 * Lists ids, kinds or channels, recipients, states, attempts and last errors, never content
 * (a push's text, a mail's code). A running server picks a retried message up within two sweep
 * periods (MESSAGE_SWEEP_MS) and a job within its runner's (2 s); a stopped one at its next start.
 */
import { onDenoDeploy, parseConfig } from "../config.ts";
import { openKv } from "../store/kv.ts";
import { MessageQueue, QueueError } from "../messages/queue.ts";
import type { Message } from "../messages/types.ts";
import { discardJob, type Job, JobError, type JobView, listJobs, retryJob } from "../jobs/jobs.ts";

const USAGE = "usage: deno task outbox [retry ID…|retry --all-failed|discard ID…]";

/** Runs one command; returns the exit code. */
export async function runCli(
  args: string[],
  queue: MessageQueue,
  print: (line: string) => void = console.log,
  now = Date.now(),
): Promise<number> {
  const [cmd, ...rest] = args;
  if (!cmd || cmd === "list") {
    const open = await queue.open();
    const s = await queue.stats();
    print(
      `${s.pending} pending, ${s.sending} sending, ${s.failed} failed` +
        (s.oldestPendingAgeSeconds === null
          ? ""
          : `; oldest waiting ${s.oldestPendingAgeSeconds} s`),
    );
    for (const m of open) print(row(m, now));
    const jobs = await listJobs(queue.kv);
    const count = (state: JobView["state"]) => jobs.filter((j) => j.state === state).length;
    print(
      `jobs: ${count("waiting")} waiting, ${count("running")} running, ${count("failed")} failed`,
    );
    for (const j of jobs) print(jobRow(j, now));
    return 0;
  }
  if (cmd !== "retry" && cmd !== "discard") {
    print(USAGE);
    return 2;
  }
  let ids = rest.filter((a) => !a.startsWith("--"));
  if (cmd === "retry" && rest.includes("--all-failed")) {
    ids = [
      ...(await queue.open()).filter((m) => m.state === "failed").map((m) => m.id),
      ...(await listJobs(queue.kv)).filter((j) => j.state === "failed").map((j) => j.id),
    ];
    if (!ids.length) print("no failed message or job");
  } else if (!ids.length) {
    print(USAGE);
    return 2;
  }
  let code = 0;
  for (const id of ids) {
    try {
      if (await queue.get(id)) {
        const m = cmd === "retry" ? await queue.retry(id) : await queue.discard(id);
        print(`${id}: ${m.state}`);
      } else if (cmd === "retry") {
        const j = await retryJob(queue.kv, id, now);
        print(`${id}: ${j.kind} waiting`);
      } else {
        const j = await discardJob(queue.kv, id, now);
        print(`${id}: ${j.kind} discarded`);
      }
    } catch (err) {
      if (!(err instanceof QueueError) && !(err instanceof JobError)) throw err;
      print(`${id}: ${err.message}`);
      code = 1;
    }
  }
  return code;
}

/** What a job's data may show: ids and an event's type, never text. */
const SHOWN = ["type", "userOid", "deviceId", "requestOid", "approvalOid", "transactionOid"];

function jobRow(j: JobView, now: number): string {
  const age = `${Math.round((now - j.createdAt) / 1000)} s`;
  const data = (j as Job<Record<string, unknown>>).data ?? {};
  const about = SHOWN.filter((k) => typeof data[k] === "string").map((k) => `${k} ${data[k]}`);
  // A message's delivery names its message (listed above it).
  if (typeof data.id === "string") about.unshift(`message ${data.id}`);
  const when = j.state === "waiting"
    ? ` next in ${Math.max(0, j.at - now)} ms`
    : j.state === "running"
    ? ` lease ends in ${Math.max(0, j.at - now)} ms`
    : "";
  const err = j.lastError ? ` — ${j.lastError}` : "";
  return `${j.id}  ${j.state.padEnd(7)} ${j.kind}  ${about.join(", ") || "-"}  ` +
    `age ${age}, ${j.attempts} attempt(s)${when}${err}`;
}

function row(m: Message, now: number): string {
  const age = `${Math.round((now - m.createdAt) / 1000)} s`;
  const next = m.state === "pending" ? ` next in ${Math.max(0, m.nextAttemptAt - now)} ms` : "";
  const err = m.lastError ? ` — ${m.lastError}` : "";
  return `${m.id}  ${m.state.padEnd(7)} ${m.channel.padEnd(5)} ${m.purpose ?? "-"}  to ${m.to}  ` +
    `age ${age}, ${m.attempts} attempt(s)${next}${err}`;
}

if (import.meta.main) {
  const config = parseConfig(Deno.env.toObject());
  const kv = await openKv(config.KV_PATH, onDenoDeploy(), { poolSize: 2 });
  const queue = new MessageQueue(kv, {
    retentionMs: Math.round(config.MESSAGE_RETENTION_DAYS * 86_400_000),
    now: Date.now,
  });
  let code = 1;
  try {
    code = await runCli(Deno.args, queue);
  } finally {
    kv.close();
  }
  Deno.exit(code);
}
