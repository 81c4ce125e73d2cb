import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import type { OutboxTransport, StoredMail } from "../mail/outbox.ts";

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * GET /_outbox: the demo outbox, newest first, as a page or as JSON
 * (`Accept: application/json`), optionally `?to=email`. Mounted only with the outbox transport.
 */
export function outboxRoutes(outbox: OutboxTransport): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", async (c) => {
    const to = c.req.query("to");
    const mails = await outbox.list({ to });
    c.header("Cache-Control", "no-store");
    if ((c.req.header("accept") ?? "").includes("application/json")) {
      return c.json({ messages: mails });
    }
    return c.html(page(mails, to));
  });
  return app;
}

function page(mails: StoredMail[], to?: string): string {
  const items = mails.map((m) =>
    `<article>
  <h2>${esc(m.subject)}</h2>
  <p class="meta">To <b>${esc(m.to)}</b> · ${esc(m.sentAt)}</p>
  <pre>${esc(m.text)}</pre>
</article>`
  ).join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>QCard outbox</title><link rel="stylesheet" href="/outbox.css"></head>
<body><main><h1>QCard outbox${to ? ` for ${esc(to)}` : ""}</h1>
<p>Mail sent by the embedded demo set-up, newest first. Add <code>?to=email</code> to filter.</p>
${items || "<p>No mail yet.</p>"}</main></body></html>`;
}
