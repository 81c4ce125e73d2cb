import { ApiError, NetworkError, UnavailableError } from "../api/http.ts";
import { t } from "../i18n/index.ts";

/**
 * What to tell the person about a failed call: the server's message when it sent one. No
 * network: what failed needs a connection (a blocking write — approve, reject, a card, a flip —
 * is never queued: spec §1 offline, engineering.md habit 7); the server answering 503: it could not
 * be reached.
 */
export function messageOf(err: unknown): string {
  if (err instanceof UnavailableError) return t("common.networkError");
  if (err instanceof NetworkError) return t("common.needsConnection");
  if (err instanceof ApiError && err.message) return err.message;
  return t("common.somethingWrong");
}
