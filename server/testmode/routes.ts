import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv, Deps } from "../domain/env.ts";
import { badRequest, HttpError } from "../errors.ts";
import { IssuerError } from "../issuer/mod.ts";
import { EventInput, parseInput, PurchaseInput, RefundInput } from "../domain/purchase_input.ts";
import { overview } from "./overview.ts";
import { ISSUER_CSS, page } from "./page.ts";
import { capture, purchase, refund, reverse, type TestModeResult } from "../domain/purchases.ts";

const isForm = (c: Context<AppEnv>) =>
  (c.req.header("content-type") ?? "").startsWith("application/x-www-form-urlencoded");

async function bodyOf(c: Context<AppEnv>): Promise<unknown> {
  if (isForm(c)) return await c.req.parseBody();
  const text = await c.req.text();
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    throw badRequest("malformed_json", "The request body is not valid JSON");
  }
}

/**
 * `/_issuer`: the issuer's test mode, beside /_outbox — never mounted in
 * production, loopback-only (app.ts DEV_PREFIX, devOnly). GET answers the page, or with
 * `Accept: application/json` `{cards, transactions, rates}`. POST purchase, capture, reverse
 * and refund take JSON (answering a TestModeResult) or the page's forms (answering 303 back
 * to the page with the outcome). No script on the page: the CSP forbids inline script.
 */
export function issuerRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", async (c) => {
    const deps = c.var.deps;
    const view = await overview(deps);
    c.header("Cache-Control", "no-store");
    if ((c.req.header("accept") ?? "").includes("application/json")) return c.json(view);
    const result = c.req.query("result");
    const shown = result ? await deps.issuer.getAuthorization(result) : null;
    return c.html(page(view, { result: shown, error: c.req.query("error") ?? null }));
  });
  app.get("/issuer.css", (c) => {
    c.header("Cache-Control", "no-store");
    return c.body(ISSUER_CSS, 200, { "content-type": "text/css; charset=utf-8" });
  });

  const action =
    (run: (deps: Deps, body: unknown) => Promise<TestModeResult>) => async (c: Context<AppEnv>) => {
      const form = isForm(c);
      c.header("Cache-Control", "no-store");
      try {
        const out = await run(c.var.deps, await bodyOf(c));
        return form ? c.redirect(`/_issuer?result=${out.authorizationId}`, 303) : c.json(out);
      } catch (err) {
        // The page shows the refusal; the JSON API answers it through onError.
        if (!form || !(err instanceof HttpError || err instanceof IssuerError)) throw err;
        return c.redirect(`/_issuer?error=${encodeURIComponent(err.message)}`, 303);
      }
    };
  app.post("/purchase", action((d, b) => purchase(d, parseInput(PurchaseInput, b))));
  app.post("/capture", action((d, b) => capture(d, parseInput(EventInput, b))));
  app.post("/reverse", action((d, b) => reverse(d, parseInput(EventInput, b))));
  app.post("/refund", action((d, b) => refund(d, parseInput(RefundInput, b))));
  return app;
}
