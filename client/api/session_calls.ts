import type { session as Contract } from "../shared/contract/session.ts";
import { type Route, sessionRoutes } from "../shared/contract/routes.ts";
import { type Deferred, deferred } from "./http.ts";

// The session calls of spec §7 for the first load: routes now, the session contract (zod
// and its schemas) in a chunk fetched by the first call, while the PIN pad is on screen.

type Session = typeof Contract;

/** The session contract's chunk. */
export const sessionContract = (): Promise<Session> =>
  import("../shared/contract/session.ts").then((m) => m.session);

/** Every session call, as a {@link Deferred} endpoint. */
export const sessionCalls = Object.fromEntries(
  Object.entries(sessionRoutes).map(([name, route]: [string, Route]) => [
    name,
    deferred(route, () => sessionContract().then((s) => s[name as keyof Session])),
  ]),
) as { [K in keyof Session]: Deferred<Session[K]> };

// The routes and the contract name the same calls (checked when compiling).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<keyof Session, keyof typeof sessionRoutes>;
