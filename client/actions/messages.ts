import { ApiError, NetworkError } from "../api/http.ts";
import { t } from "../i18n/index.ts";

/** What to tell the person about a failed call: the server's message when it sent one. */
export function messageOf(err: unknown): string {
  if (err instanceof NetworkError) return t("common.networkError");
  if (err instanceof ApiError && err.message) return err.message;
  return t("common.somethingWrong");
}
