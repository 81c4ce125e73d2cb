/**
 * Bench (docs/messages.md): messages queued per second (into the durable outbox, 50 concurrent
 * callers), delivered per second to a local SMTP server (tests/server/smtp_server.ts, over TCP),
 * and the time from a lost-activation request to its mail in that server's inbox (median, p95).
 */
import { orgFileWithUsers, testApp } from "../helpers.ts";
import { startSmtpServer } from "../server/smtp_server.ts";

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

export async function benchMessages(
  line: (name: string, value: string, budget?: string) => void,
): Promise<void> {
  const QUEUED = 2000, DELIVERED = 500, REQUESTS = 50;
  const server = await startSmtpServer();
  const { file, emails } = await orgFileWithUsers(REQUESTS);
  const env = {
    MAIL_TRANSPORT: "smtp",
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: String(server.port),
    ORG_FILE: file,
  };
  // Queue throughput: no worker, so nothing competes with the writes.
  const idle = await testApp({ ...env, DEMO_ORG: "false", ORG_FILE: "" });
  try {
    const q = idle.deps.messages;
    const mail = (i: number) => ({
      channel: "email" as const,
      to: `bench${i}@demo.example`,
      subject: "QCard bench",
      text: `Message ${i}: your activation code is 12345.`,
    });
    const t0 = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: 50 }, async () => {
      while (next < QUEUED) await q.send(mail(next++));
    }));
    const s = (performance.now() - t0) / 1000;
    line("messages queued (50 concurrent callers)", `${(QUEUED / s).toFixed(0)} /s`, `${QUEUED}`);
  } finally {
    await idle.close();
  }

  const api = await testApp(env, { deliver: true });
  try {
    await server.waitFor(5 + REQUESTS);
    await api.worker!.idle();
    // Delivery throughput: a backlog queued at once, drained by the worker into the server.
    const base = server.mails.length;
    const op = () => api.kv.atomic();
    for (let i = 0; i < DELIVERED; i += 50) {
      const o = op();
      for (let j = i; j < i + 50; j++) {
        api.deps.messages.add(o, {
          channel: "email",
          to: `inbox${j}@demo.example`,
          subject: "QCard bench",
          text: `Message ${j}`,
        });
      }
      await o.commit();
    }
    const t0 = performance.now();
    await server.waitFor(base + DELIVERED, 120_000);
    const s = (performance.now() - t0) / 1000;
    line(
      "messages delivered to a local SMTP server",
      `${(DELIVERED / s).toFixed(0)} /s`,
      `${DELIVERED}, concurrency ${api.deps.config.MESSAGE_CONCURRENCY}, pooled connections`,
    );
    await api.worker!.idle();

    // Request → inbox: one lost activation at a time, timed until the server holds its mail.
    const times: number[] = [];
    for (const [i, email] of emails.entries()) {
      const before = server.mails.length;
      const t = performance.now();
      const r = await api.call("POST", "/scmapi/expense/pwasecretanswer", {
        body: { email, answer: "paris", questOid: "q-birth-city" },
        headers: { "device-id": `bench-device-${i}` },
      });
      if (r.status !== 200) throw new Error(`pwasecretanswer ${r.status}: ${r.text}`);
      await server.waitFor(before + 1);
      times.push(performance.now() - t);
    }
    line(
      "lost activation: request → mail in the inbox, median",
      `${pct(times, 0.5).toFixed(1)} ms`,
      `p95 ${pct(times, 0.95).toFixed(1)} ms (${REQUESTS} requests, SMTP over TCP; with KV ` +
        `queues before: 56 / 93 ms)`,
    );

    // The sweep (a cron run's look for due messages) with 10,000 delivered ones in the store:
    // it reads only the open index, so delivered mail costs it nothing.
    const DONE = 10_000, now = Date.now();
    for (let i = 0; i < DONE; i += 250) {
      const o = op();
      for (let j = i; j < i + 250; j++) {
        const id = `zz${String(j).padStart(8, "0")}delivered`;
        api.deps.messages.repo.write(o, null, {
          channel: "email",
          to: `done${j}@demo.example`,
          subject: "QCard bench",
          text: "",
          id,
          state: "delivered",
          createdAt: now,
          updatedAt: now,
          attempts: 1,
          nextAttemptAt: now,
          deliveredAt: now,
        });
      }
      await o.commit();
    }
    const sweeps: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      await api.worker!.tick();
      sweeps.push(performance.now() - t);
    }
    line(
      "message sweep (cron run) with 10,000 delivered messages, median",
      `${pct(sweeps, 0.5).toFixed(2)} ms`,
      `p95 ${pct(sweeps, 0.95).toFixed(2)} ms (${DONE} delivered + ${DELIVERED + REQUESTS} ` +
        `from above; all due jobs, push and periodic claims included)`,
    );
  } finally {
    await api.close();
    await server.close();
    await Deno.remove(file);
  }
}
