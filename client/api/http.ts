import type { BodyOf, Endpoint, QueryOf, ResponseOf } from "./contract/endpoint.ts";
import { DEVICE_ID_HEADER, ErrorBody } from "./contract/endpoint.ts";
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
 * Calls one contract endpoint and parses its answer with the contract's schema
 * (never `res.json() as T`, GUIDE habit 2).
 */
export async function call<E extends Endpoint>(
  ep: E,
  input: CallInput<E> = {},
): Promise<ResponseOf<E>> {
  // Issue 13: the server answers messages in the language the person reads.
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
    throw new NetworkError(err);
  }
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    if (res.ok) throw new ApiError(res.status, "bad_response", "The server answered badly");
  }
  if (!res.ok) {
    const e = ErrorBody.safeParse(json);
    if (e.success) throw new ApiError(res.status, e.data.error, e.data.message, e.data);
    throw new ApiError(res.status, "http_error", `HTTP ${res.status}`);
  }
  const parsed = ep.response.safeParse(json);
  if (!parsed.success) throw new ApiError(res.status, "bad_response", "The server answered badly");
  return parsed.data as ResponseOf<E>;
}
