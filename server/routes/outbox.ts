import { Hono } from "hono";
import type { AppEnv } from "../domain/env.ts";
import type { OutboxView, StoredMail } from "../mail/outbox.ts";

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * GET /_outbox: the demo outbox — email and SMS of the channels whose transport is the
 * outbox, newest first, each with its delivery state — as a page or as JSON
 * (`Accept: application/json`: `{messages: [{id, channel, to, subject, text, sentAt, state,
 * attempts, lastError, deliveredAt, expiresAt}]}`), optionally `?to=` an address or number.
 * Mounted only when a channel uses the outbox transport.
 */
export function outboxRoutes(outbox: OutboxView): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", async (c) => {
    const to = c.req.query("to");
    const mails = await outbox.list({ to });
    c.header("Cache-Control", "no-store");
    if ((c.req.header("accept") ?? "").includes("application/json")) {
      return c.json({ messages: mails });
    }
    return c.html(page(mails, outbox.channels, to));
  });
  return app;
}

function page(mails: StoredMail[], channels: string[], to?: string): string {
  const items = mails.map((m) => {
    const title = m.channel === "sms" ? `SMS to ${m.to}` : m.subject;
    const error = m.lastError ? ` · last error: ${esc(m.lastError)}` : "";
    return `<article class="${esc(m.channel)} ${esc(m.state)}">
  <h2>${esc(title)}</h2>
  <p class="meta">${m.channel === "sms" ? "SMS" : "Email"} to <b>${esc(m.to)}</b> · queued ${
      esc(m.sentAt)
    } · <span class="state">${esc(m.state)}</span>${
      m.attempts ? ` after ${m.attempts} attempt${m.attempts > 1 ? "s" : ""}` : ""
    }${error}</p>
  <pre>${esc(m.text)}</pre>
</article>`;
  }).join("\n");
  const what = channels.map((c) => (c === "sms" ? "SMS" : "mail")).join(" and ");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>QCard outbox</title><link rel="stylesheet" href="/outbox.css"></head>
<body><main><h1>QCard outbox${to ? ` for ${esc(to)}` : ""}</h1>
<p>${what} queued by the embedded demo set-up, newest first, with each message's delivery state.
Add <code>?to=</code> an address or number to filter.</p>
${items || "<p>No messages yet.</p>"}</main></body></html>`;
}
