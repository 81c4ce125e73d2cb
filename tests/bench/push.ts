/**
 * Bench (spec §1 push notifications): web push fan-out. One notice for a user with 200 subscribed
 * devices: encrypted (aes128gcm), signed (VAPID ES256) and POSTed to a local push service that
 * verifies the JWT and decrypts every payload (tests/server/push_receiver.ts), from queueing to the
 * last delivery; and the encryption alone (web-push generateRequestDetails; the VAPID JWT is signed
 * once per push service and hour).
 */
import webpush from "web-push";
import { testApp } from "../helpers.ts";
import { startReceiver } from "../server/push_receiver.ts";
import { enqueue, pushService } from "../../server/push/mod.ts";
import { vapidKeys } from "../../server/push/keys.ts";
import { vapidHeader } from "../../server/push/send.ts";
import type { Notice } from "../../server/push/notify.ts";

export async function benchPush(
  line: (name: string, value: string, budget?: string) => void,
): Promise<void> {
  const N = 200;
  const subject = "mailto:push-bench@qcard.eu";
  const rx = startReceiver({ subject });
  const api = await testApp({ VAPID_SUBJECT: subject, PUSH_HOSTS: rx.origin }, { deliver: true });
  try {
    const vapid = (await vapidKeys(api.deps.config, api.kv))!;
    rx.expectKey(vapid.publicKey);
    const user = (await api.deps.store.users.byEmail("employee@demo.example"))!;
    const subs = [];
    for (let i = 0; i < N; i++) {
      const s = await rx.subscribe(`d${i}`);
      subs.push(JSON.parse(s.token));
      const deviceId = `bench-${i}`;
      const op = api.kv.atomic();
      api.deps.store.devices.put(op, {
        deviceId,
        userOid: user.oid,
        status: "active",
        tokenHash: crypto.randomUUID(),
        pinFailures: 0,
        createdAt: Date.now(),
      });
      api.deps.store.pushSubs.put(op, {
        userOid: user.oid,
        deviceId,
        subscription: JSON.parse(s.token),
        isIOS: false,
        at: Date.now(),
      });
      await op.commit();
    }
    const payload = JSON.stringify({
      title: "Approval needed",
      body: "Emma Martin asks for 300.00 €: Team offsite in Lyon",
      url: "/?open=approval:0b6f3c1e-8d2a-4c55-9a1b-2f7e6d5c4b3a",
      tag: "approval:0b6f3c1e-8d2a-4c55-9a1b-2f7e6d5c4b3a",
    });
    // Encryption and signing alone.
    const t0 = performance.now();
    for (const s of subs) {
      const Authorization = vapidHeader(new URL(s.endpoint).origin, vapid);
      webpush.generateRequestDetails(s, payload, { headers: { Authorization } });
    }
    const enc = N / ((performance.now() - t0) / 1000);

    const notice: Notice = {
      userOid: user.oid,
      payload: JSON.parse(payload),
      urgency: "normal",
      ttlSeconds: 3600,
    };
    const push = pushService(api.deps)!;
    const runs: number[] = [];
    for (let r = 0; r < 3; r++) {
      const before = rx.deliveries.length;
      const t1 = performance.now();
      await enqueue(api.deps, [notice]);
      push.worker.kick();
      await rx.waitFor(before + N, 30_000);
      await push.idle();
      if (rx.deliveries.length !== before + N) {
        throw new Error(`push bench: ${rx.deliveries.length - before} of ${N} delivered`);
      }
      runs.push(N / ((performance.now() - t1) / 1000));
    }
    if (rx.errors.length) throw new Error(`push bench: receiver refused: ${rx.errors[0]}`);
    const best = Math.max(...runs);
    line(
      `push fan-out: ${N} devices, queued → delivered (local service)`,
      `${best.toFixed(0)} /s`,
      `runs ${runs.map((x) => x.toFixed(0)).join(", ")}; JWT checked, payload decrypted`,
    );
    line(
      "  encryption alone (generateRequestDetails, JWT cached)",
      `${enc.toFixed(0)} /s`,
      "web-push's aes128gcm through Deno's node:crypto",
    );
  } finally {
    await api.close();
    await rx.close();
  }
}

if (import.meta.main) {
  await benchPush((name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`)
  );
}
