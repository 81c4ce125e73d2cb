/** The API contract (engineering.md §1): every call of spec §7, grouped as the spec groups them. */
export * from "./endpoint.ts";
export { session } from "./session.ts";
export { requests } from "./requests.ts";
export { approvals } from "./approvals.ts";
export { cards } from "./cards.ts";
export { transactions } from "./transactions.ts";
export { documents } from "./documents.ts";
export { vat } from "./vat.ts";
export { passkey } from "./passkey.ts";
export { declarations } from "./declarations.ts";
export { exports } from "./export.ts";
import { session } from "./session.ts";
import { requests } from "./requests.ts";
import { approvals } from "./approvals.ts";
import { cards } from "./cards.ts";
import { transactions } from "./transactions.ts";
import { documents } from "./documents.ts";
import { vat } from "./vat.ts";
import { passkey } from "./passkey.ts";
import { declarations } from "./declarations.ts";
import { exports } from "./export.ts";
export const contract = {
  session,
  requests,
  approvals,
  cards,
  transactions,
  documents,
  vat,
  passkey,
  declarations,
  exports,
} as const;
