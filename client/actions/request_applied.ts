import type { ExpenseRequest } from "../shared/contract/requests.ts";
import { detail, requestRows } from "../state/requests.ts";
import { changed } from "./changes.ts";

// A request's write answered (cancel, close, submit, edit, card generation — spec §4): the
// request detail and its row show the server's answer at once, then pwalists is read again.
// Its own module so that the card and form actions reach it without importing requests.ts.

/** After a write: the detail shows the server's answer and the list is refreshed. */
export async function applied(r: ExpenseRequest): Promise<void> {
  if (detail.value?.oid === r.oid) detail.value = { ...detail.value, entity: r };
  requestRows.value = requestRows.value.map((x) => x.oid === r.oid ? { ...x, ...r } : x);
  await changed("request", r.oid);
}
