import {
  type Change,
  CHANGE_STREAM_PATH,
  ChangeBatch,
  type ChangeKind,
} from "../shared/contract/changes.ts";
import { credentials } from "../api/http.ts";
import { signal } from "@preact/signals-react";

// The one way lists change on the phone (docs/app.md, "One change channel"). Each list — the
// requests and transactions of pwalists, approvals, the open card, the open transaction's
// receipts and comments… — registers here which kinds of change touch it. A change reaches the
// registry from one of three places, and nothing else refreshes a list:
// - the server's stream while the app is open and unlocked (changes of this user and of the
//   teams whose approvals they decide, as each commits, on every device of the user);
// - a write of this phone that went through (its answer is already on screen; `changed`);
// - the offline queue's replays (actions/replay.ts names what each replayed write changed).
// A list touched by several changes at once is refreshed once; one already refreshing is
// refreshed once more after it, with the changes that came meanwhile.

/** One list on the phone and the changes it follows. */
export interface ListEntry {
  /** What it is (tests and the debugging console read it). */
  name: string;
  kinds: readonly ChangeKind[];
  /** Only changes of these ids count (an open detail); every id when absent. */
  ids?: () => readonly string[];
  /** Reads the list again (or applies the changes to it); writes its cache once. */
  refresh(changes: Change[]): Promise<void>;
}

const entries = new Map<string, ListEntry>();
const running = new Map<string, Promise<void>>();
const pending = new Map<string, Change[]>();

/** Registers a list (again under the same name: replaced); returns its removal. */
export function registerList(entry: ListEntry): () => void {
  entries.set(entry.name, entry);
  return () => {
    if (entries.get(entry.name) === entry) entries.delete(entry.name);
  };
}

function matches(e: ListEntry, c: Change): boolean {
  if (!e.kinds.includes(c.kind)) return false;
  return !e.ids || e.ids().includes(c.id);
}

async function run(e: ListEntry, changes: Change[]): Promise<void> {
  const prev = running.get(e.name);
  if (prev) {
    // Refreshing already: once more after it, for everything that came meanwhile.
    const queued = pending.get(e.name);
    pending.set(e.name, [...(queued ?? []), ...changes]);
    if (queued) return await prev;
    await prev.catch(() => {});
    const more = pending.get(e.name) ?? [];
    pending.delete(e.name);
    return await run(e, more);
  }
  const p = e.refresh(changes).catch((err) => console.warn(`refreshing ${e.name} failed`, err));
  running.set(e.name, p);
  try {
    await p;
  } finally {
    if (running.get(e.name) === p) running.delete(e.name);
  }
}

/** Hands changes to the lists they touch: each list once. */
export async function applyChanges(changes: readonly Change[]): Promise<void> {
  const work: Promise<void>[] = [];
  for (const e of entries.values()) {
    const mine = changes.filter((c) => matches(e, c));
    if (mine.length) work.push(run(e, mine));
  }
  await Promise.all(work);
}

/** Every list read again (the header's refresh, a stream that could not say what changed). */
export async function refreshEveryList(): Promise<void> {
  await Promise.all([...entries.values()].map((e) => run(e, [])));
}

/**
 * Writes of this phone the server's stream will echo: (kind:id) → when the list was refreshed
 * for it. The echo within {@link ECHO_MS} is not read again.
 */
const echoes = new Map<string, number>();
const ECHO_MS = 5_000;

/** A write of this phone whose answer is already on screen and in the cache: its echo is skipped. */
export function markEcho(kind: ChangeKind, id: string): void {
  echoes.set(`${kind}:${id}`, Date.now());
}

/** A write of this phone went through (its answer is on screen): the lists it touches. */
export async function changed(kind: ChangeKind, id: string): Promise<void> {
  echoes.set(`${kind}:${id}`, Date.now());
  await applyChanges([{ kind, id, version: "" }]);
}

function notEcho(c: Change): boolean {
  const k = `${c.kind}:${c.id}`;
  const at = echoes.get(k);
  if (at === undefined) return true;
  echoes.delete(k);
  return Date.now() - at > ECHO_MS;
}

// ---- The stream ----

/** Whether a stream is open (the header's live dot; tests read it). */
export const live = signal(false);

const CURSOR_KEY = "qc_changes";
/** A cursor older than this is not resumed from: the lists are read whole instead. */
const CURSOR_MAX_AGE_MS = 7 * 86_400_000;
const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

let wanted = false;
let unsupported = false;
let conn: AbortController | null = null;
let failures = 0;
let retry: ReturnType<typeof setTimeout> | undefined;
let firstSeen: (() => void) | null = null;
let wired = false;

function storedCursor(): string {
  try {
    const raw = JSON.parse(localStorage.getItem(CURSOR_KEY) ?? "null") as
      | { c: string; at: number }
      | null;
    return raw && Date.now() - raw.at < CURSOR_MAX_AGE_MS ? raw.c : "";
  } catch {
    return "";
  }
}

function keepCursor(c: string): void {
  try {
    localStorage.setItem(CURSOR_KEY, JSON.stringify({ c, at: Date.now() }));
  } catch { /* private mode: kept in memory only for this page */ }
}

let cursor = "";

/**
 * Unlocked: opens the stream (and again whenever the app comes back to the screen or the
 * network returns). Resolves once the server has answered the first time — from then on no
 * change is missed, so the lists' own read may follow — or after `waitMs` at most.
 */
export function startChanges(opts: { fresh: boolean; waitMs?: number }): Promise<void> {
  wanted = true;
  wire();
  // After unlock the lists are read whole: the stream starts from now, not from a cursor.
  cursor = opts.fresh ? "" : (cursor || storedCursor());
  const ready = new Promise<void>((ok) => {
    firstSeen = ok;
    setTimeout(ok, opts.waitMs ?? 1_000);
  });
  connect();
  return ready;
}

/** Locked, logged out or wiped: the stream ends and no other opens. */
export function stopChanges(): void {
  wanted = false;
  clearTimeout(retry);
  conn?.abort();
  conn = null;
  live.value = false;
}

function wire(): void {
  if (wired || typeof document === "undefined") return;
  wired = true;
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) {
      conn?.abort();
      conn = null;
    } else connect();
  });
  addEventListener("online", () => connect());
  addEventListener("offline", () => {
    conn?.abort();
    conn = null;
  });
}

function connect(): void {
  clearTimeout(retry);
  if (!wanted || unsupported || conn || !credentials.bearer) return;
  if (typeof document !== "undefined" && document.hidden) return;
  if (typeof navigator !== "undefined" && navigator.onLine === false) return;
  const ac = new AbortController();
  conn = ac;
  void read(ac).finally(() => {
    if (conn === ac) conn = null;
    live.value = false;
    if (!wanted || unsupported || ac.signal.aborted) return;
    const wait = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)];
    failures++;
    retry = setTimeout(connect, wait);
  });
}

async function read(ac: AbortController): Promise<void> {
  const q = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
  let res: Response;
  try {
    res = await fetch(`/bonita${CHANGE_STREAM_PATH}${q}`, {
      headers: { accept: "text/event-stream", authorization: `Bearer ${credentials.bearer}` },
      cache: "no-store",
      signal: ac.signal,
    });
  } catch {
    return; // offline or aborted
  }
  if (res.status === 401) {
    // The session's own calls say what a refused token means; the stream just ends.
    wanted = false;
    return;
  }
  if (!res.ok || !res.body || !/event-stream/.test(res.headers.get("content-type") ?? "")) {
    // An upstream without the channel (relay mode): lists refresh on open, focus and pull.
    if (res.status === 404 || res.status === 405 || res.status === 501) unsupported = true;
    await res.body?.cancel().catch(() => {});
    firstSeen?.();
    return;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let i: number;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = block.split("\n").filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trimStart()).join("\n");
        if (data) await onBatch(data);
      }
    }
  } catch {
    // Dropped (network, server restart, the stream's own end): resumed from the cursor.
  } finally {
    reader.cancel().catch(() => {});
  }
}

async function onBatch(data: string): Promise<void> {
  let parsed: ChangeBatch;
  try {
    const r = ChangeBatch.safeParse(JSON.parse(data));
    if (!r.success) return;
    parsed = r.data;
  } catch {
    return;
  }
  live.value = true;
  failures = 0;
  const first = firstSeen;
  firstSeen = null;
  first?.();
  const before = cursor;
  cursor = parsed.cursor;
  keepCursor(cursor);
  if (parsed.full) return await refreshEveryList();
  // The first answer to a stream opened without a cursor is where it starts: nothing to apply.
  if (!before) return;
  const fresh = parsed.changes.filter(notEcho);
  if (fresh.length) await applyChanges(fresh);
}

/** A push that named its change, while the app is on screen (the stream may be closed). */
export function pushedChange(kind: unknown, id: unknown): void {
  const k = String(kind) as ChangeKind;
  if (!["request", "approval", "transaction", "receipt", "comment"].includes(k)) return;
  if (typeof id !== "string" || id.length > 64) return;
  if (live.value) return; // the stream brings it, with its version
  void applyChanges([{ kind: k, id, version: "" }]);
}
