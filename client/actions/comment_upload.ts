import * as z from "zod/mini";
import { CommentUploadBody, commentUploadPath } from "../shared/contract/request_bodies.ts";
import { endpoint } from "../shared/contract/endpoint.ts";
import { call } from "../api/http.ts";

// spec §7 comment upload: POST to a URL the server supplies {oid, entityType 'expense',
// record, id, archive, comment}. The comment list (pwaexpensecomments) names it when the
// system of record wants comments there (an upstream in relay mode); the relay rewrites it
// onto its own /bonita paths (server/relay/comment_upload.ts). This module imports no other
// action (no import circle): the loaders note the URL, sendComment asks for it.

/** The supplied upload path per request oid, as the last comment list named it. */
const supplied = new Map<string, string>();

/** Notes what a comment list answered for `oid` (a URL that is not a plain path is dropped). */
export function noteCommentUpload(oid: string, url: string | null | undefined): void {
  const path = commentUploadPath(url);
  if (path) supplied.set(oid, path);
  else supplied.delete(oid);
}

/** Whether comments on `oid` go to a supplied URL. */
export function hasCommentUpload(oid: string): boolean {
  return supplied.has(oid);
}

/** The answer is the upstream's: any JSON object is taken as done (spec §7 shows none). */
const Answer = z.unknown();

/** spec §7 comment upload: the comment POSTed to the supplied URL with the bearer token. */
export async function uploadComment(
  body: CommentUploadBody,
  headers: Record<string, string> = {},
): Promise<void> {
  const path = supplied.get(body.record);
  if (!path) throw new Error("no comment upload URL for this request");
  const ep = endpoint({
    method: "POST",
    path: path.slice("/bonita".length),
    auth: "bearer",
    body: CommentUploadBody,
    response: Answer,
  });
  await call(ep, { body, headers });
}
