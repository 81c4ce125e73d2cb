/** The API contract (GUIDE §1): every call of spec §7, grouped as the spec groups them. */
export * from "./endpoint.ts";
export { session } from "./session.ts";
export { requests } from "./requests.ts";
export { approvals } from "./approvals.ts";
export { cards } from "./cards.ts";
export { transactions } from "./transactions.ts";
import { session } from "./session.ts";
import { requests } from "./requests.ts";
import { approvals } from "./approvals.ts";
import { cards } from "./cards.ts";
import { transactions } from "./transactions.ts";
export const contract = { session, requests, approvals, cards, transactions } as const;
