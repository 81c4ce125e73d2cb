import type { session as Contract } from "../shared/contract/session.ts";
import { type Route, sessionRoutes } from "../shared/contract/routes.ts";
import { afterTask } from "../lib/tasks.ts";
import { type Deferred, deferred } from "./http.ts";

// The session calls of spec §7 for the first load: routes now, the session contract (zod
// and its schemas) in a chunk fetched by the first call, while the PIN pad is on screen. Only
// pwalists needs the lists' schemas (requests, transactions): every other call's chunk
// (session_start.ts) builds none of them.

type Session = typeof Contract;

/** The whole session contract's chunk (pwalists' schemas included). */
export const sessionContract = (): Promise<Session> =>
  import("../shared/contract/session.ts").then((m) => afterTask(m.session));

/**
 * The chunk of the calls made before the lists (initialize, translation, activation…). The
 * answer is parsed in a task after the one that built the schemas (neither is a long task).
 */
const startContract = (): Promise<Omit<Session, "lists">> =>
  import("../shared/contract/session_start.ts").then((m) => afterTask(m.sessionStart));

/** Every session call, as a {@link Deferred} endpoint. */
export const sessionCalls = Object.fromEntries(
  Object.entries(sessionRoutes).map(([name, route]: [string, Route]) => [
    name,
    deferred(
      route,
      name === "lists"
        ? () => sessionContract().then((s) => s.lists)
        : () => startContract().then((s) => s[name as Exclude<keyof Session, "lists">]),
    ),
  ]),
) as { [K in keyof Session]: Deferred<Session[K]> };

// The routes and the contract name the same calls (checked when compiling).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<keyof Session, keyof typeof sessionRoutes>;
