import { Hono } from "hono";
import { approvals, OVERVIEW_TEAMS_OLD_PATH } from "../../client/shared/contract/approvals.ts";
import type { AppEnv } from "../domain/env.ts";
import {
  addApprovalComment,
  approvalComments,
  approvalDetails,
  approvalVotes,
  decide,
  listApprovals,
  overviewTeams,
  teamUsers,
} from "../domain/approvals.ts";
import { route } from "./define.ts";

/** spec §7 approvals: the approver's list, details, votes, decisions, comments and teams. */
export function approvalRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  route(app, approvals.list, async ({ c, auth }) => ({
    approvallist: await listApprovals(c.var.deps, auth!.user),
  }));
  route(app, approvals.details, async ({ c, query, auth }) => ({
    approvalentity: [await approvalDetails(c.var.deps, auth!.user, query.record)],
  }));
  route(app, approvals.votes, async ({ c, query, auth }) => ({
    voteslist: await approvalVotes(c.var.deps, auth!.user, query.oid),
  }));
  route(app, approvals.approve, async ({ c, body, auth }) => ({
    approvalentity: [await decide(c.var.deps, auth!.user, body.oid, "approved")],
  }));
  route(app, approvals.reject, async ({ c, body, auth }) => ({
    approvalentity: [await decide(c.var.deps, auth!.user, body.oid, "rejected", body.note)],
  }));
  route(app, approvals.comments, async ({ c, query, auth }) => ({
    comments: await approvalComments(c.var.deps, auth!.user, query.foreignentityoid),
  }));
  route(app, approvals.addComment, async ({ c, body, auth }) => ({
    comment: await addApprovalComment(c.var.deps, auth!.user, body.oid, body.comment),
  }));
  route(
    app,
    approvals.overviewTeams,
    async ({ c }) => ({ teamlist: await overviewTeams(c.var.deps) }),
  );
  // Clients built before the path followed spec §7 still call it under /scmapi/approval/.
  route(
    app,
    { ...approvals.overviewTeams, path: OVERVIEW_TEAMS_OLD_PATH },
    async ({ c }) => ({ teamlist: await overviewTeams(c.var.deps) }),
  );
  route(app, approvals.teamUsers, async ({ c, query }) => ({
    teamUsers: await teamUsers(c.var.deps, query.teamOid),
  }));
  return app;
}
