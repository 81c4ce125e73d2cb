/**
 * Typed HTTP errors. Handlers throw these; one `onError` in app.ts turns them into
 * the JSON body `{error, message}` every client can rely on (engineering.md habit 3).
 */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 422 | 429 | 503,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/**
 * Every problem a zod schema (full or mini) found, as a 400's message names them:
 * "field.path: message; …" (a problem of the whole value has no path).
 */
export function issuesText(
  err: { issues: readonly { path: readonly PropertyKey[]; message: string }[] },
): string {
  return err.issues.map((i) => `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`)
    .join("; ");
}

export const badRequest = (code: string, message: string, extra?: Record<string, unknown>) =>
  new HttpError(400, code, message, extra);
export const unauthorized = (message = "Authentication required") =>
  new HttpError(401, "unauthorized", message);
export const forbidden = (code: string, message: string, extra?: Record<string, unknown>) =>
  new HttpError(403, code, message, extra);
export const notFound = (message = "Not found") => new HttpError(404, "not_found", message);
export const conflict = (message: string) => new HttpError(409, "conflict", message);
export const unprocessable = (code: string, message: string) => new HttpError(422, code, message);
export const tooMany = (message = "Too many attempts, try again later") =>
  new HttpError(429, "rate_limited", message);
