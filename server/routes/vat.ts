import { Hono } from "hono";
import type { AppEnv } from "../env.ts";

/** Issue 12 (vat): filled in by the work on receipts, documents and VAT. */
export function vatRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
