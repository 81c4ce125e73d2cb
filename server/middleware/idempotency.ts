import type { Context, MiddlewareHandler } from "hono";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import type { AppEnv } from "../domain/env.ts";
import { cards } from "../../client/shared/contract/cards.ts";
import { readLimited } from "./body.ts";
import { type HeldKey, type IdemRecord, markCommitted, underKey } from "../store/idempotency.ts";

// Idempotency keys (engineering.md §5): the offline queue replays writes whose answer may
// have been lost, so a write carrying `Idempotency-Key` is carried out once and every repeat
// gets the first answer. Same key with another request → 422; a repeat while the first is
// still running waits for it (or 409 when it takes too long). Expensify's lesson: a repeat
// is a success, never a 'duplicate' refusal.

export const IDEMPOTENCY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "idempotent-replayed";
/** How long an answer is kept (24 h, for the offline queue's replays). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** A running first request holds the key this long at most (a crash frees it after that). */
export const LEASE_MS = 60_000;
/** How long a concurrent repeat waits for the first request before answering 409. */
export const WAIT_MS = 5_000;
const POLL_MS = 25;
/** Deno KV values are ≤ 64 KiB: the stored answer stays well below with its other fields. */
export const MAX_STORED_BODY = 60 * 1024;

const KEY = /^[A-Za-z0-9_-]{8,128}$/;
/** Answer headers a replay repeats (the rest are set again by the outer middleware). */
const KEPT_HEADERS = ["content-type", "content-language"];

type Rec = IdemRecord;
type Pending = Extract<Rec, { state: "pending" }>;
type Done = Extract<Rec, { state: "done" }>;
type Committed = Extract<Rec, { state: "committed" }>;

const json = (status: number, error: string, message: string) =>
  new Response(JSON.stringify({ error, message }), {
    status,
    headers: { "content-type": "application/json" },
  });

async function sha256Hex(data: Uint8Array<ArrayBuffer>): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

const enc = new TextEncoder();

/** The method, path and sorted query of a request, as its fingerprint begins. */
function requestHead(method: string, url: string): string {
  const u = new URL(url, "http://x");
  const query = [...u.searchParams].sort(([a, x], [b, y]) =>
    a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0
  );
  return JSON.stringify([method.toUpperCase(), u.pathname, query]);
}

/** SHA-256 of method, path, sorted query and body. */
export async function fingerprint(
  method: string,
  url: string,
  body: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const bodyHash = await sha256Hex(body);
  return await sha256Hex(enc.encode(`${requestHead(method, url)}\n${bodyHash}`));
}

/**
 * The fingerprint of a multipart form, by its parts (fields sorted, each file's field, name and
 * SHA-256) rather than its raw bytes: a browser chooses a new boundary every time it sends a
 * FormData, so the same upload never has the same bytes. The upload computes its files' hashes
 * while it stores them (routes/upload.ts).
 */
export async function formFingerprint(
  method: string,
  url: string,
  fields: Record<string, string>,
  files: [field: string, name: string, sha256: string][],
): Promise<string> {
  const sorted = [...files].sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  const f = Object.entries(fields).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  const bodyHash = await sha256Hex(enc.encode(JSON.stringify(["multipart", f, sorted])));
  return await sha256Hex(enc.encode(`${requestHead(method, url)}\n${bodyHash}`));
}

/**
 * Bearer POSTs whose answer is a secret's check (the 3-D Secure PIN): never kept or replayed,
 * each attempt is evaluated and counted (engineering.md §6: nothing secret in a stored answer). The
 * reveals are GETs and the device PIN calls have no bearer: both are out by the rules below.
 */
const NEVER_KEPT = new Set([`/bonita${cards.validateSecurePin.path}`]);

/** The key a request runs under: its record's KV key (the caller's scope and the header). */
export interface IdemKey {
  key: Deno.KvKey;
  header: string;
}

/**
 * The key a request runs under: null when none applies, a 400 answer when it is malformed.
 * Who the key belongs to: the bearer's device (its user's, that device's), as callerFirst
 * found it before any body was read. Stripe's rule (engineering.md §6): keys belong to an
 * authenticated caller and apply to POST only. The offline queue replays bearer calls only
 * (client/actions/replay.ts: comments, notes, VAT, uploads), so a key with only a device-id
 * is ignored: no device call is replayed, none is kept.
 */
export function keyOf(c: Context<AppEnv>): IdemKey | Response | null {
  const header = c.req.header(IDEMPOTENCY_HEADER);
  if (header === undefined) return null;
  if (c.req.method !== "POST" || NEVER_KEPT.has(c.req.path)) return null;
  const auth = c.get("auth");
  if (!auth) return null;
  if (!KEY.test(header)) {
    return json(
      400,
      "invalid_idempotency_key",
      "Idempotency-Key must be 8-128 letters, digits, - or _",
    );
  }
  return { key: ["idem", `u:${auth.user.oid}:d:${auth.device.deviceId}`, header], header };
}

/** Whether `k` holds a live record now: a request under it ran, or is running. */
export async function keyHeld(c: Context<AppEnv>, k: IdemKey): Promise<boolean> {
  const deps = c.var.deps;
  const v = (await deps.store.kv.get<Rec>(k.key)).value;
  const now = deps.now();
  return !!v && (v.state === "pending" ? v.until > now : v.expiresAt > now);
}

/**
 * The idempotency middleware for the API, mounted after callerFirst and the JSON body, before
 * the routes. Only a bearer's POST with the header runs under a key; every other request
 * passes untouched (a GET, a reveal, a PIN call, a caller without a bearer). The upload reads
 * its body as it arrives and runs under its key itself (routes/upload.ts, with `once`).
 */
export function idempotency(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.path === `/bonita${UPLOAD_PATH}`) return await next();
    const k = keyOf(c);
    if (k === null) return await next();
    if (k instanceof Response) return k;
    const deps = c.var.deps;
    const raw = c.req.raw;
    let body = new Uint8Array();
    if (raw.body) {
      const read = await readLimited(raw.body, Infinity, deps.config.BODY_TIMEOUT_MS);
      if (!read.ok && read.reason === "timeout") {
        return json(408, "body_timeout", "The request body was not received in time");
      }
      if (!read.ok) return json(400, "body_unreadable", "The request body could not be read");
      body = read.body;
      c.req.raw = new Request(raw, { body: read.body });
    }
    const fp = await fingerprint(c.req.method, raw.url, body);
    return await once(c, k, fp, async () => {
      await next();
      return c.res;
    });
  };
}

/**
 * Runs `run` once for the request's key and fingerprint `fp`, and answers what it answered;
 * every repeat gets that answer. Same key with another request → 422; a repeat while the first
 * is still running waits for it (or 409 when it takes too long). Only 2xx answers are kept:
 * after a 4xx the key is free again (the write did not happen), after a 5xx the client retries.
 */
export async function once(
  c: Context<AppEnv>,
  k: IdemKey,
  fp: string,
  run: () => Promise<Response>,
): Promise<Response> {
  const deps = c.var.deps;
  const kv = deps.store.kv;
  const waitUntil = Date.now() + WAIT_MS;
  // Take the key (a lease), or answer from what it holds.
  let lease: { value: Pending; versionstamp: string };
  for (;;) {
    const cur = await kv.get<Rec>(k.key);
    const now = deps.now();
    const v = cur.value;
    const live = v && (v.state === "pending" ? v.until > now : v.expiresAt > now);
    if (v && live) {
      if (v.fp !== fp) {
        return json(
          422,
          "idempotency_mismatch",
          "This Idempotency-Key was already used for another request",
        );
      }
      if (v.state === "done") return replay(v);
      // Written, and its request gone without an answer (a crash, or a 5xx after the
      // write): done, but there is nothing to repeat. While its lease runs, wait for it.
      if (v.state === "committed" && v.until <= now) return replay(v);
      if (Date.now() >= waitUntil) return inProgress();
      await new Promise((r) => setTimeout(r, POLL_MS));
      continue;
    }
    const mine: Pending = { state: "pending", fp, until: now + LEASE_MS };
    const ok = await kv.atomic().check(cur).set(k.key, mine, { expireIn: LEASE_MS }).commit();
    if (ok.ok) {
      lease = { value: mine, versionstamp: ok.versionstamp };
      break;
    }
  }
  // The handler runs under the key: a write that must happen once commits through
  // commitOnce (server/store/idempotency.ts), checked against this lease and marking the
  // key committed in the same operation. `held.versionstamp` follows those writes.
  const held: HeldKey = {
    key: k.key,
    fp,
    versionstamp: lease.versionstamp,
    until: lease.value.until,
    ttlMs: IDEMPOTENCY_TTL_MS,
    now: () => deps.now(),
    committed: false,
    open: true,
  };
  let kept = false;
  try {
    let res: Response;
    try {
      res = await underKey(held, run);
    } finally {
      held.open = false;
    }
    await deps.faults?.beforeCommit?.("idempotency.answer");
    // A refusal (4xx) is not kept: nothing was done, and the same request may succeed
    // later (engineering.md §6). A write that did commit keeps its mark (the finally below).
    if (res.status < 400) {
      const text = await res.clone().text();
      const small = enc.encode(text).length <= MAX_STORED_BODY;
      if (!small) console.warn(`idempotent answer not kept (${text.length} chars): ${k.header}`);
      const done: Done = {
        state: "done",
        fp,
        status: res.status,
        headers: KEPT_HEADERS.flatMap((h) => {
          const v = res.headers.get(h);
          return v === null ? [] : [[h, v] as [string, string]];
        }),
        body: small ? text : null,
        expiresAt: deps.now() + IDEMPOTENCY_TTL_MS,
      };
      const w = await kv.atomic().check({ key: k.key, versionstamp: held.versionstamp })
        .set(k.key, done, { expireIn: IDEMPOTENCY_TTL_MS })
        .commit();
      kept = w.ok;
    }
    return res;
  } finally {
    if (!kept) {
      // A 4xx, a 5xx or a thrown error after the write: the write stands, so a repeat must
      // not run it again; it is told at once that it was carried out. Before any write: the
      // key is freed, so the client's retry runs.
      const end = held.committed
        ? markCommitted(kv.atomic(), held, deps.now())
        : kv.atomic().check({ key: k.key, versionstamp: held.versionstamp }).delete(k.key);
      await end.commit().catch(() => {});
    }
  }
}

/** A repeat while the first request still runs (the offline queue tries again later). */
export function inProgress(): Response {
  return json(
    409,
    "idempotency_in_progress",
    "A request with this Idempotency-Key is still being processed",
  );
}

function replay(v: Done | Committed): Response {
  if (v.state === "committed") {
    return json(
      409,
      "idempotency_replay_unavailable",
      "This request was already carried out; its answer was lost",
    );
  }
  if (v.body === null) {
    return json(
      409,
      "idempotency_replay_unavailable",
      "This request was already carried out; its answer was too large to keep",
    );
  }
  const headers = new Headers(v.headers);
  headers.set(REPLAYED_HEADER, "true");
  return new Response(v.body, { status: v.status, headers });
}
