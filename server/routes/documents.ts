import { Hono } from "hono";
import type { AppEnv } from "../env.ts";

/** Issue 12 (documents): filled in by the work on receipts, documents and VAT. */
export function documentRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
