/** The API contract (GUIDE §1): every call of spec §7, grouped as the spec groups them. */
export * from "./endpoint.ts";
export { session } from "./session.ts";
export { requests } from "./requests.ts";
import { session } from "./session.ts";
import { requests } from "./requests.ts";
export const contract = { session, requests } as const;
