import * as z from "zod/mini";
import type { Auth } from "./routes.ts";
export type { Auth } from "./routes.ts";

/**
 * One call of spec §7: method, path under /bonita, auth, and the zod/mini schemas of its
 * query, body and response. Both the server (input validation) and the client (response
 * parsing) read the same object, so the two sides cannot drift apart.
 */
export interface Endpoint<
  Q extends z.ZodMiniType = z.ZodMiniType,
  B extends z.ZodMiniType = z.ZodMiniType,
  R extends z.ZodMiniType = z.ZodMiniType,
> {
  method: "GET" | "POST";
  path: string;
  auth: Auth;
  query?: Q;
  body?: B;
  response: R;
}

export function endpoint<
  Q extends z.ZodMiniType,
  B extends z.ZodMiniType,
  R extends z.ZodMiniType,
>(e: Endpoint<Q, B, R>): Endpoint<Q, B, R> {
  return e;
}

export type QueryOf<E> = E extends Endpoint<infer Q, z.ZodMiniType, z.ZodMiniType> ? z.infer<Q>
  : never;
export type BodyOf<E> = E extends Endpoint<z.ZodMiniType, infer B, z.ZodMiniType> ? z.infer<B>
  : never;
export type ResponseOf<E> = E extends Endpoint<z.ZodMiniType, z.ZodMiniType, infer R> ? z.infer<R>
  : never;

/** Every error answer of the API: `{error, message}` plus optional details. */
export const ErrorBody = z.looseObject({
  error: z.string(),
  message: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export { DEVICE_ID_HEADER } from "./routes.ts";
export const DeviceId = z.string().check(
  z.regex(/^[A-Za-z0-9_-]{8,128}$/, "device-id must be 8-128 letters, digits, - or _"),
);
