import { documents as docApi } from "../shared/contract/documents.ts";
import { requests as reqApi } from "../shared/contract/requests.ts";
import { transactions as txApi } from "../shared/contract/transactions.ts";
import { vat as vatApi } from "../shared/contract/vat.ts";
import { uploadFile } from "../api/files.ts";
import { ApiError, call, NetworkError } from "../api/http.ts";
import { commentLanded } from "./comment_landing.ts";
import { currentKey } from "./device.ts";
import { changed } from "./changes.ts";
import type { ChangeKind } from "../shared/contract/changes.ts";
import { messageOf } from "./messages.ts";
import { outq, type OutqKind, type OutqView } from "../state/outq.ts";
import { t } from "../i18n/index.ts";
import { pushBanner, showNotice } from "../state/ui.ts";
import {
  addQueued,
  type JsonCall,
  listQueued,
  type NewWrite,
  type QueuedFiles,
  type QueuedWrite,
  readQueuedFiles,
  removeQueued,
  updateQueued,
} from "../offline/queue.ts";

// Replaying the offline write queue (spec §1 offline): in order, one tab at a time, when the
// network returns, when the app is unlocked, after a write that went through, and on a
// backoff timer. A refusal (4xx) stays in the queue, failed, with the server's message in
// the error banners until the person retries or discards it; network errors and 5xx are
// retried after 1 s, 2 s, 4 s … at most 60 s. Every attempt carries the write's
// idempotency key, so a lost answer never turns into a second write.

/**
 * The calls a queued write may make (money-moving calls are never queued, engineering.md habit 7).
 */
export const QUEUEABLE = {
  "request.addComment": reqApi.addComment,
  "transaction.addComment": txApi.addComment,
  "receipt.saveNote": docApi.saveNote,
  "receipt.saveRead": docApi.saveRead,
  "vat.setDoTax": vatApi.setDoTax,
  "vat.review": vatApi.review,
} as const;
export type QueueableCall = keyof typeof QUEUEABLE;

export const BACKOFF_FIRST_MS = 1000;
export const BACKOFF_MAX_MS = 60_000;
/** When another tab holds the queue, this one looks again after this long. */
const OTHER_TAB_MS = 5000;
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

/** The wait before retry number `failures` (1 → 1 s, 2 → 2 s, 3 → 4 s, … ≤ 60 s). */
export function backoffMs(failures: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * What an attempt's error means for the write: `failed` (the server refused it: kept for
 * the person to see), `retry` (no answer, a 5xx, or a 4xx that says 'later'), or `sent`
 * (the server did it but its answer did not parse, or is no longer there to repeat).
 */
export function outcomeOf(err: unknown): "failed" | "retry" | "sent" {
  if (!(err instanceof ApiError)) return "retry";
  if (err.status >= 200 && err.status < 300) return "sent";
  // 401: the session ended (the queue waits for the next unlock); 408, 429: later;
  // 409 idempotency_in_progress: the first attempt is still running on the server.
  if (err.status === 401 || err.status === 408 || err.status === 429) return "retry";
  if (err.status === 409 && err.code === "idempotency_in_progress") return "retry";
  // 409 idempotency_replay_unavailable: an earlier attempt was carried out, its answer is
  // gone (lost with the server that wrote it, or too large to keep): done, re-read.
  if (err.status === 409 && err.code === "idempotency_replay_unavailable") return "sent";
  if (err.status >= 400 && err.status < 500) return "failed";
  return "retry";
}

export interface DrainHooks {
  sending(w: QueuedWrite): void;
  sent(w: QueuedWrite, answer: unknown): Promise<void>;
  failed(w: QueuedWrite, err: unknown): Promise<void>;
  retry(w: QueuedWrite, err: unknown): Promise<void>;
}

/**
 * The replay's state machine: pending writes in order; a refusal marks that write failed
 * and the next one goes; anything else stops the run with the order kept (`retry`).
 */
export async function drain(
  list: QueuedWrite[],
  send: (w: QueuedWrite) => Promise<unknown>,
  hooks: DrainHooks,
): Promise<"done" | "retry"> {
  for (const w of [...list].sort((a, b) => a.seq - b.seq)) {
    if (w.state !== "pending") continue;
    hooks.sending(w);
    let answer: unknown;
    try {
      answer = await send(w);
    } catch (err) {
      const o = outcomeOf(err);
      if (o === "failed") {
        await hooks.failed(w, err);
        continue;
      }
      if (o === "retry") {
        await hooks.retry(w, err);
        return "retry";
      }
    }
    await hooks.sent(w, answer);
  }
  return "done";
}

// ---- The app's queue ----

type Applier = (w: QueuedWrite, answer: unknown) => void | Promise<void>;
/** What each kind of queued write changed, for the change registry (actions/changes.ts). */
const CHANGED: Record<OutqKind, ChangeKind> = {
  comment: "comment",
  note: "receipt",
  read: "receipt",
  dotax: "transaction",
  review: "transaction",
  receipt: "receipt",
  document: "receipt",
};
/** Comments: named here (their module is in the first load and reaches this one by import()). */
const appliers = new Map<OutqKind, Applier>([["comment", commentLanded]]);
/**
 * What a replayed write changes on screen, registered by the action module that queued it
 * (those import this module; it does not import them, so no import circle is added).
 */
export function onReplayed(kind: OutqKind, fn: Applier): void {
  appliers.set(kind, fn);
}

const viewOf = (w: QueuedWrite): OutqView => ({
  seq: w.seq,
  key: w.key,
  kind: w.kind,
  target: w.target,
  ref: w.ref,
  label: w.label,
  state: w.state,
  error: w.error,
  attempts: w.attempts,
  createdAt: w.createdAt,
});

function setView(seq: number, p: Partial<OutqView> | null): void {
  outq.value = p === null
    ? outq.value.filter((e) => e.seq !== seq)
    : outq.value.map((e) => e.seq === seq ? { ...e, ...p } : e);
}

async function send(w: QueuedWrite): Promise<unknown> {
  const headers = { [IDEMPOTENCY_KEY_HEADER]: w.key };
  if ("upload" in w.call) {
    const key = currentKey();
    const files = key ? await readQueuedFiles(key, w) : null;
    if (!files) throw new ApiError(410, "queued_file_missing", w.label);
    const u = w.call.upload;
    return await uploadFile(u.path, {
      file: files.file,
      name: u.name,
      preview: files.preview,
      fields: u.fields,
      idempotencyKey: w.key,
    });
  }
  const ep = QUEUEABLE[w.call.ep as QueueableCall];
  if (!ep) throw new ApiError(400, "unknown_call", w.call.ep);
  // deno-lint-ignore no-explicit-any
  return await call(ep as any, { query: w.call.query, body: w.call.body, headers });
}

const hooks: DrainHooks = {
  sending: (w) => setView(w.seq, { state: "sending" }),
  async sent(w, answer) {
    await removeQueued(w);
    setView(w.seq, null);
    failures = 0;
    try {
      await appliers.get(w.kind)?.(w, answer);
      // The lists it touches are read again through the one registry, like any write's.
      await changed(CHANGED[w.kind], w.target);
    } catch (err) {
      console.warn("applying a replayed write failed", err);
    }
  },
  async failed(w, err) {
    const next: QueuedWrite = {
      ...w,
      state: "failed",
      attempts: w.attempts + 1,
      error: messageOf(err),
    };
    const key = currentKey();
    if (key) await updateQueued(key, next);
    setView(w.seq, viewOf(next));
    pushBanner(next.error!);
  },
  async retry(w, err) {
    const next: QueuedWrite = { ...w, attempts: w.attempts + 1, error: messageOf(err) };
    const key = currentKey();
    if (key) await updateQueued(key, next);
    setView(w.seq, viewOf(next));
  },
};

let running = false;
let again = false;
let failures = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

function later(ms: number): void {
  clearTimeout(timer);
  timer = setTimeout(() => void replayQueue(), ms);
}

/** Runs `fn` holding the queue's lock; false when another tab holds it. */
async function withLock(fn: () => Promise<void>): Promise<boolean> {
  const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
  if (!locks) {
    await fn();
    return true;
  }
  return await locks.request("qcard-outq", { ifAvailable: true }, async (lock) => {
    if (!lock) return false;
    await fn();
    return true;
  });
}

/** Reads the queue from QCDB into the screens' state (another tab may have changed it). */
export async function loadQueue(): Promise<QueuedWrite[]> {
  const key = currentKey();
  if (!key) return [];
  const list = await listQueued(key);
  outq.value = list.map(viewOf);
  return list;
}

/** Sends what waits, in order; a second call during a run makes the run go round again. */
export async function replayQueue(): Promise<void> {
  if (!currentKey()) return;
  if (running) {
    again = true;
    return;
  }
  running = true;
  clearTimeout(timer);
  try {
    const held = await withLock(async () => {
      do {
        again = false;
        const list = await loadQueue();
        if (!list.some((w) => w.state === "pending")) break;
        if (await drain(list, send, hooks) === "retry") {
          later(backoffMs(++failures));
          break;
        }
      } while (again);
    });
    if (!held) {
      // Another tab sends them: show its progress here now and then.
      await loadQueue();
      if (outq.value.some((e) => e.state !== "failed")) later(OTHER_TAB_MS);
    }
  } catch (err) {
    console.warn("offline queue replay failed", err);
    later(backoffMs(++failures));
  } finally {
    running = false;
  }
}

/** Whether writes wait to be sent (a new write then goes behind them, keeping the order). */
export function hasPending(): boolean {
  return outq.value.some((e) => e.state !== "failed");
}

/**
 * Puts a write in the queue (it shows at once as pending, with a notice saying so) and
 * tries to send it when the network allows. False when it could not be stored (locked).
 */
export async function enqueue(w: NewWrite, files?: QueuedFiles): Promise<boolean> {
  const key = currentKey();
  if (!key) return false;
  try {
    const stored = await addQueued(key, w, files);
    outq.value = [...outq.value.filter((e) => e.seq !== stored.seq), viewOf(stored)];
    showNotice(t("outq.queued"));
  } catch (err) {
    console.warn("queueing a write failed", err);
    return false;
  }
  later(backoffMs(Math.max(1, failures)));
  return true;
}

/** Retry (the person's choice on a failed write): pending again, sent at once. */
export async function retryWrite(seq: number): Promise<void> {
  const key = currentKey();
  if (!key) return;
  const w = (await listQueued(key)).find((x) => x.seq === seq);
  if (!w) return setView(seq, null);
  await updateQueued(key, { ...w, state: "pending", error: null });
  setView(seq, { state: "pending", error: null });
  failures = 0;
  await replayQueue();
}

/** Discard (the person's choice on a failed write): gone from the queue for good. */
export async function discardWrite(seq: number): Promise<void> {
  const e = outq.value.find((x) => x.seq === seq);
  if (!e) return;
  await removeQueued(e);
  setView(seq, null);
}

/**
 * Starts the queue for an unlocked session: reads it, sends what waits, and sends again
 * whenever the network returns. Returns the stop function (lock, logout).
 */
export function startQueue(): () => void {
  const online = () => {
    failures = 0;
    void replayQueue();
  };
  addEventListener("online", online);
  void replayQueue();
  return () => {
    removeEventListener("online", online);
    clearTimeout(timer);
  };
}

/** One write of sendWrites: its kind, how it shows while it waits, and its call. */
export interface Write {
  kind: OutqKind;
  label: string;
  ref?: string;
  call: JsonCall & { ep: QueueableCall };
}

/**
 * Sends writes on `target` in order, each with an idempotency key; from the first one that
 * finds no network on (or from the start when writes already wait, so they land in the order
 * written), they go into the offline queue in the same order. 'sent' with the last answer,
 * 'queued', or the error (a refusal, or no network and no room in the queue).
 */
export async function sendWrites(
  target: string,
  writes: Write[],
): Promise<{ sent: unknown } | "queued"> {
  let answer: unknown = null;
  let queueing = hasPending();
  for (const w of writes) {
    const key = crypto.randomUUID();
    const item = {
      key,
      kind: w.kind,
      target,
      ...(w.ref === undefined ? {} : { ref: w.ref }),
      label: w.label,
      call: w.call,
    };
    if (queueing && await enqueue(item)) continue;
    try {
      // deno-lint-ignore no-explicit-any
      answer = await call(QUEUEABLE[w.call.ep] as any, {
        query: w.call.query,
        body: w.call.body,
        headers: { [IDEMPOTENCY_KEY_HEADER]: key },
      });
    } catch (err) {
      if (!(err instanceof NetworkError) || !(await enqueue(item))) throw err;
      queueing = true;
    }
  }
  if (queueing) return "queued";
  kickQueue();
  return { sent: answer };
}

/** After a write went through: the network is back, so what waits goes too. */
export function kickQueue(): void {
  if (hasPending()) {
    failures = 0;
    void replayQueue();
  }
}
