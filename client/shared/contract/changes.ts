import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";

const E = "/scmapi/expense";

/** The kinds of change a list on the phone may be touched by (server/store/changes.ts). */
export const ChangeKind = z.enum(["request", "approval", "transaction", "receipt", "comment"]);
export type ChangeKind = z.infer<typeof ChangeKind>;

export const Change = z.object({
  kind: ChangeKind,
  id: z.string().check(z.maxLength(64)),
  version: z.string().check(z.maxLength(32)),
});
export type Change = z.infer<typeof Change>;

/**
 * What changed since a cursor: the changes, oldest first, and the cursor after them (kept by the
 * phone and sent back). `full`: too many or too old to tell one by one; read every list again.
 */
export const ChangeBatch = z.object({
  cursor: z.string().check(z.maxLength(8192)),
  changes: z.array(Change),
  full: z.boolean(),
});
export type ChangeBatch = z.infer<typeof ChangeBatch>;

const Query = z.object({ cursor: z.optional(z.string().check(z.maxLength(8192))) });

/**
 * The change channel (docs/app.md): `since` answers once; the stream (Server-Sent Events over a
 * fetch that carries the bearer) answers the changes since the cursor at once, then each new
 * batch as it commits, with a comment line every {@link CHANGE_HEARTBEAT_MS} while nothing does,
 * and ends after {@link CHANGE_STREAM_MS} (the phone reconnects from its cursor).
 */
export const changes = {
  since: endpoint({
    method: "GET",
    path: `${E}/pwachanges`,
    auth: "bearer",
    query: Query,
    response: ChangeBatch,
  }),
};
export const CHANGE_STREAM_PATH = `${E}/pwachanges/stream`;
export const CHANGE_HEARTBEAT_MS = 15_000;
export const CHANGE_STREAM_MS = 240_000;
