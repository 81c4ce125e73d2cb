import type { BodyOf, Endpoint, QueryOf, ResponseOf } from "../shared/contract/endpoint.ts";
import { DEVICE_ID_HEADER, type Route } from "../shared/contract/routes.ts";
import { preferredLanguage } from "../i18n/language.ts";

/** The server answered with an error `{error, message}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The server could not be reached (offline, DNS, reset): callers fall back to cached data. */
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super("network error", { cause });
    this.name = "NetworkError";
  }
}

/**
 * The server answered 503: it cannot reach its data just now (server/store/unavailable.ts), did
 * nothing, and says when to try again. To the app that is the same as no network: lists come
 * from the cache, writes wait in the offline queue and are sent later, a PIN unlocks offline
 * (a correct PIN is never counted as wrong because the server is away).
 */
export class UnavailableError extends NetworkError {
  constructor(readonly retryAfterS: number | null) {
    super(new Error("the server is unavailable (503)"));
    this.name = "UnavailableError";
  }
}

/** An UnavailableError for a 503 answer (with its Retry-After), else null. */
export function unavailable(status: number, retryAfter: string | null): UnavailableError | null {
  if (status !== 503) return null;
  const s = retryAfter?.trim() ?? "";
  const at = /^\d+$/.test(s) ? Number(s) : s ? (Date.parse(s) - Date.now()) / 1000 : NaN;
  return new UnavailableError(Number.isFinite(at) ? Math.max(0, Math.ceil(at)) : null);
}

/**
 * Told whether each call reached the server (false: no network, or a 503): the offline strip
 * follows it (spec §1 offline). Set by actions/network.ts; the API layer imports no state.
 */
export const reach: { report?: (ok: boolean) => void } = {};

/** Credentials the API layer attaches; set by the session actions, kept in memory only. */
export const credentials: { bearer: string | null; deviceId: string | null } = {
  bearer: null,
  deviceId: null,
};

export interface CallInput<E> {
  query?: QueryOf<E>;
  body?: BodyOf<E>;
  headers?: Record<string, string>;
}

/**
 * An endpoint whose schemas are fetched on demand: its route is known at once, its contract
 * (zod and the schemas) comes in a chunk of its own. The PIN pad's first load carries only
 * routes; the answers are still parsed with the contract's schema, once that chunk is in.
 */
export interface Deferred<E extends Endpoint> extends Route {
  contract: () => Promise<E>;
}

/** `route` now, `contract()` when its answer is to be parsed. */
export function deferred<E extends Endpoint>(
  route: Route,
  contract: () => Promise<E>,
): Deferred<E> {
  return { method: route.method, path: route.path, auth: route.auth, contract };
}

/** The error schema's chunk: error answers are parsed with zod too, after the first load. */
const errorSchema = () => import("../shared/contract/endpoint.ts").then((m) => m.ErrorBody);

/** A chunk that cannot be fetched is a network failure: callers fall back as offline. */
async function loadChunk<T>(chunk: Promise<T>): Promise<T> {
  try {
    return await chunk;
  } catch (err) {
    throw new NetworkError(err);
  }
}

/**
 * Calls one contract endpoint and parses its answer with the contract's schema
 * (never `res.json() as T`, engineering.md habit 2). A {@link Deferred} endpoint's contract is
 * fetched alongside the request.
 */
export async function call<E extends Endpoint>(
  ep: E | Deferred<E>,
  input: CallInput<E> = {},
): Promise<ResponseOf<E>> {
  const contract = "contract" in ep ? ep.contract() : Promise.resolve(ep);
  contract.catch(() => {/* reported where it is awaited */});
  // spec §7 pwatranslation: the server answers messages in the language the person reads.
  const headers: Record<string, string> = {
    accept: "application/json",
    "accept-language": preferredLanguage(),
    ...input.headers,
  };
  if ((ep.auth === "bearer" || ep.auth === "bearer-or-device") && credentials.bearer) {
    headers.authorization = `Bearer ${credentials.bearer}`;
  }
  if ((ep.auth === "device" || ep.auth === "bearer-or-device") && credentials.deviceId) {
    headers[DEVICE_ID_HEADER] = credentials.deviceId;
  }
  let url = `/bonita${ep.path}`;
  if (input.query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(input.query as Record<string, unknown>)) {
      if (v !== undefined && v !== null) q.set(k, String(v));
    }
    const s = q.toString();
    if (s) url += `?${s}`;
  }
  let body: string | undefined;
  if (input.body !== undefined) {
    body = JSON.stringify(input.body);
    headers["content-type"] = "application/json";
  }
  let res: Response;
  try {
    res = await fetch(url, { method: ep.method, headers, body, cache: "no-store" });
  } catch (err) {
    reach.report?.(false);
    throw new NetworkError(err);
  }
  const away = unavailable(res.status, res.headers.get("retry-after"));
  reach.report?.(!away);
  if (away) throw away;
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    if (res.ok) throw new ApiError(res.status, "bad_response", "The server answered badly");
  }
  if (!res.ok) {
    const e = (await loadChunk(errorSchema())).safeParse(json);
    if (e.success) throw new ApiError(res.status, e.data.error, e.data.message, e.data);
    throw new ApiError(res.status, "http_error", `HTTP ${res.status}`);
  }
  const parsed = (await loadChunk(contract)).response.safeParse(json);
  if (!parsed.success) throw new ApiError(res.status, "bad_response", "The server answered badly");
  return parsed.data as ResponseOf<E>;
}
