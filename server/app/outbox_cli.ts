/**
 * `deno task outbox`: the operators' view of messages on the configured KV (KV_PATH).
 *
 *   deno task outbox                      pending, sending and failed messages, oldest first
 *   deno task outbox retry ID…            send again now (failed or pending), attempts reset
 *   deno task outbox retry --all-failed   the same for every failed message
 *   deno task outbox discard ID…          give up on a pending or failed message
 *
 * Lists ids, channels, recipients, states, attempts and last errors, never content. A
 * running server picks a retried message up within two sweep periods (MESSAGE_SWEEP_MS);
 * a stopped one at its next start.
 */
import { onDenoDeploy, parseConfig } from "../config.ts";
import { openKv } from "../store/kv.ts";
import { MessageQueue, QueueError } from "../messages/queue.ts";
import type { Message } from "../messages/types.ts";

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
    return 0;
  }
  if (cmd !== "retry" && cmd !== "discard") {
    print(USAGE);
    return 2;
  }
  let ids = rest.filter((a) => !a.startsWith("--"));
  if (cmd === "retry" && rest.includes("--all-failed")) {
    ids = (await queue.open()).filter((m) => m.state === "failed").map((m) => m.id);
    if (!ids.length) print("no failed message");
  } else if (!ids.length) {
    print(USAGE);
    return 2;
  }
  let code = 0;
  for (const id of ids) {
    try {
      const m = cmd === "retry" ? await queue.retry(id) : await queue.discard(id);
      print(`${id}: ${m.state}`);
    } catch (err) {
      if (!(err instanceof QueueError)) throw err;
      print(`${id}: ${err.message}`);
      code = 1;
    }
  }
  return code;
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
