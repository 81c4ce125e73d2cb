import { approvals } from "../../client/shared/contract/approvals.ts";
import { requests } from "../../client/shared/contract/requests.ts";
import type { Comment } from "../../client/shared/contract/requests.ts";
import { edgeCommentUploadUrl } from "./comment_upload.ts";

/**
 * Behind an upstream, the edge sends what the spec sends (docs/relay.md, "spec calls"). QCard's
 * own client goes two ways the spec does not: a rejection carries its reason in `pwareject`
 * (`note`), and a comment written offline always replays through `pwaaddcomment`. A
 * spec-conforming upstream may refuse both, so the edge turns them into the spec's calls:
 *
 * - `pwareject` with a note: spec §4 "a comment must be added first, then the rejection
 *   proceeds" — `pwacomments` with the note, then `pwareject` with {oid, archive, isDelegated}
 *   (spec §3 Approval action). A refused comment stops there: nothing is rejected without it.
 * - `pwaaddcomment` on a request whose upstream names a comment upload URL in its comment list:
 *   spec §7 "POST to a supplied URL {oid, entityType 'expense', record, id, archive, comment}",
 *   the request's id read from the upstream. The client's answer ({comment}) is the comment as
 *   the upstream's list then shows it.
 *
 * `send` makes one call upstream with the client's own credentials; a null answer from these
 * functions means "relay the call as it is".
 */
export type Send = (
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  /** The Idempotency-Key to send: the client's (undefined), another, or none (null). */
  key?: string | null,
) => Promise<Response>;

const REJECT = `/bonita${approvals.reject.path}`;
const APPROVAL_COMMENT = `/bonita${approvals.addComment.path}`;
const ADD_COMMENT = `/bonita${requests.addComment.path}`;
const COMMENTS = `/bonita${requests.comments.path}`;
const ENTITY = `/bonita${requests.entity.path}`;

/** The paths whose bodies the edge reads to translate them. */
export const SPEC_CALL_PATHS = [REJECT, ADD_COMMENT];

function parse(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

async function json(res: Response): Promise<Record<string, unknown> | null> {
  const text = await drain(res);
  if (res.status !== 200 || !/json/.test(res.headers.get("content-type") ?? "")) return null;
  return parse(text);
}

/**
 * An answer read to its end (small: the spec's JSON answers). Read, not cancelled: a cancelled
 * answer can keep the upstream's connection from closing on today's Deno Deploy runtime.
 */
function drain(res: Response): Promise<string> {
  return res.text().catch(() => "");
}

/** `pwareject` with a note → `pwacomments` (the note), then `pwareject` as spec §3 has it. */
export async function rejectAsSpec(
  path: string,
  text: string,
  send: Send,
  key: string | null,
): Promise<Response | null> {
  if (path !== REJECT) return null;
  const body = parse(text);
  const note = typeof body?.note === "string" ? body.note.trim() : "";
  if (!body || !note || typeof body.oid !== "string") return null;
  const { oid, archive, isDelegated } = body;
  const commented = await send(
    "POST",
    APPROVAL_COMMENT,
    { oid, ...(archive !== undefined ? { archive } : {}), comment: note },
    key ? `${key.slice(0, 120)}-note` : null,
  );
  if (commented.status < 200 || commented.status >= 300) return commented;
  await drain(commented);
  return await send("POST", REJECT, {
    oid,
    ...(archive !== undefined ? { archive } : {}),
    ...(isDelegated !== undefined ? { isDelegated } : {}),
  });
}

/**
 * `pwaaddcomment` → the supplied comment upload URL, when the upstream names one for the request;
 * null (relay it as it is) otherwise.
 */
export async function addCommentAsSpec(
  path: string,
  text: string,
  send: Send,
  upstream: string,
  now: () => number,
): Promise<Response | null> {
  if (path !== ADD_COMMENT) return null;
  const body = parse(text);
  const oid = body?.oid;
  const comment = typeof body?.comment === "string" ? body.comment.trim() : "";
  if (typeof oid !== "string" || !comment) return null;
  const archive = body?.archive === true;
  const query = `?oid=${encodeURIComponent(oid)}`;
  const list = await json(await send("GET", `${COMMENTS}${query}`));
  const to = list && edgeCommentUploadUrl(upstream, list.commentUploadUrl);
  if (!to) return null;
  const entity = await json(
    await send("GET", `${ENTITY}?record=${encodeURIComponent(oid)}&archive=${archive}`),
  );
  const request = entity?.expenseRequest as { id?: unknown } | undefined;
  if (typeof request?.id !== "string") return null;
  const up = await send("POST", to, {
    oid,
    entityType: "expense",
    record: oid,
    id: request.id,
    archive,
    comment,
  });
  if (up.status < 200 || up.status >= 300) return up;
  await drain(up);
  // The comment as the upstream's list shows it now (the newest with this text), else as sent.
  const after = await json(await send("GET", `${COMMENTS}${query}`));
  const shown = (Array.isArray(after?.comments) ? after.comments as Comment[] : [])
    .filter((c) => c?.comment?.text === comment).at(-1);
  const answer: Comment = shown ?? {
    oid: `uploaded-${crypto.randomUUID()}`,
    sourceEntityOid: oid,
    archive,
    comment: { author: "", fName: "", lName: "", text: comment },
    createdate: new Date(now()).toISOString(),
    canBeDeleted: false,
  };
  return Response.json({ comment: answer });
}
