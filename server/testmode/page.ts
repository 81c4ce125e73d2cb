/**
 * The `/_issuer` page (the issuer's test mode): masked cards, the rate table, a purchase form and
 * the recent transactions with capture, reverse and refund buttons. Plain HTML forms, no script
 * (the CSP allows none inline), one stylesheet served beside it.
 */
import { minorDigits } from "../../client/shared/currency_units.ts";
import { type Authorization, formatMinor } from "../issuer/mod.ts";
import type { Overview } from "./overview.ts";

const esc = (s: unknown) => String(s ?? "").replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const money = (n: number, cur: string) => `${esc(n.toFixed(minorDigits(cur)))} ${esc(cur)}`;

export const ISSUER_CSS =
  `body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1d2733}
main{max-width:70rem;margin:0 auto;padding:1rem}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;background:#fff}th,td{padding:.35rem .5rem;border-bottom:1px solid #e2e5ea;text-align:left;vertical-align:top}
td.num{text-align:right;white-space:nowrap}form.inline{display:inline}form.inline input{width:5rem}
fieldset{background:#fff;border:1px solid #d5d9e0;padding:1rem;display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.6rem 1rem}
label{display:flex;flex-direction:column;font-size:.85rem;gap:.2rem}input,select,button{font:inherit;padding:.3rem}
.ok{background:#e3f5e8;border:1px solid #8cc79f;padding:.6rem}.ko{background:#fbe9e7;border:1px solid #e0a49a;padding:.6rem}
.Refused{color:#a2341f}.Captured{color:#1f7a4d}.Authorised{color:#8a6100}code{font-size:.85rem}`;

function outcome(a: Authorization | null, error: string | null): string {
  if (error) return `<p class="ko" role="alert">Refused: ${esc(error)}</p>`;
  if (!a) return "";
  const amount = `${formatMinor(a.merchantAmount, a.merchantCurrency)} ${a.merchantCurrency}`;
  const what = `${esc(a.merchant.name)}, ${esc(amount)}`;
  return a.approved
    ? `<p class="ok" role="status">Approved (${esc(a.status)}): ${what} — <code>${
      esc(a.id)
    }</code></p>`
    : `<p class="ko" role="status">Declined: ${esc(a.reason)} — ${what}</p>`;
}

function cardsTable(v: Overview): string {
  const rows = v.cards.map((c) =>
    `<tr><td>${esc(c.cardNumber)}</td><td>${esc(c.requestId)}</td><td>${esc(c.holder)}</td>
<td>${esc(c.brand)}</td><td>${esc(c.status)}</td><td class="num">${
      money(c.available, c.currency)
    }</td><td class="num">${money(c.allocated, c.currency)}</td><td><code>${
      esc(c.oid)
    }</code></td></tr>`
  ).join("\n");
  return `<table><thead><tr><th>Card</th><th>Request</th><th>Holder</th><th>Brand</th>
<th>Status</th><th>Available</th><th>Allocated</th><th>Card oid</th></tr></thead>
<tbody>${
    rows || '<tr><td colspan="8">No card yet: generate one in the app.</td></tr>'
  }</tbody></table>`;
}

function purchaseForm(v: Overview): string {
  const cards = v.cards.map((c) =>
    `<option value="${esc(c.oid ?? c.token)}">•••• ${esc(c.last4)} ${esc(c.requestId ?? "")} ${
      esc(c.holder)
    } (${money(c.available, c.currency)})</option>`
  ).join("");
  const currencies = Object.keys(v.rates.rates).map((k) => `<option>${esc(k)}</option>`).join("");
  return `<form method="post" action="/_issuer/purchase"><fieldset>
<label>Card<select name="card" required>${cards}</select></label>
<label>Amount<input name="amount" inputmode="decimal" required placeholder="12.50"></label>
<label>Currency<select name="currency"><option value="">card's own</option>${currencies}</select></label>
<label>Merchant name<input name="merchantName" required value="Café de la Gare"></label>
<label>Merchant city<input name="merchantCity" value="Lyon"></label>
<label>Merchant country<input name="merchantCountry" value="FR" maxlength="2"></label>
<label>MCC<input name="mcc" value="5812" maxlength="4" inputmode="numeric"></label>
<label>3-D Secure password (asks for a challenge)<input name="threeDSPassword" autocomplete="off"></label>
<label><span><input type="checkbox" name="capture" checked> Capture at once</span></label>
<button type="submit">Purchase</button></fieldset></form>`;
}

function actions(t: Overview["transactions"][number]): string {
  const id = `<input type="hidden" name="authorizationId" value="${esc(t.authorizationId)}">`;
  const form = (what: string, label: string, extra = "") =>
    `<form class="inline" method="post" action="/_issuer/${what}">${id}${extra}
<input name="amount" inputmode="decimal" placeholder="all" aria-label="${label} amount">
<button type="submit">${label}</button></form>`;
  const out = [];
  if (t.canCapture) {
    out.push(form("capture", "Capture"), form("reverse", "Reverse"));
  }
  if (t.canRefund) out.push(form("refund", "Refund"));
  return out.join(" ");
}

function transactionsTable(v: Overview): string {
  const rows = v.transactions.map((t) =>
    `<tr><td>${esc(t.createdAt.slice(0, 16).replace("T", " "))}</td><td>•••• ${
      esc(t.cardLast4)
    }</td><td>${esc(t.merchant.name)}<br><small>${esc(t.merchant.city)} ${
      esc(t.merchant.country)
    } · MCC ${esc(t.merchant.mcc)}</small></td><td class="num">${
      money(t.originalAmount, t.originalCurrency)
    }${
      t.originalCurrency === t.currency ? "" : `<br><small>${money(t.amount, t.currency)}</small>`
    }</td><td class="${esc(t.status)}">${esc(t.status)}${
      t.refusedReason ? `<br><small>${esc(t.refusedReason)}</small>` : ""
    }</td><td class="num">held ${money(t.held, t.currency)}<br>captured ${
      money(t.captured, t.currency)
    }<br>refunded ${money(t.refunded, t.currency)}</td><td>${actions(t)}</td></tr>`
  ).join("\n");
  return `<table><thead><tr><th>When (UTC)</th><th>Card</th><th>Merchant</th><th>Amount</th>
<th>Status</th><th>Card amounts</th><th>Actions</th></tr></thead>
<tbody>${rows || '<tr><td colspan="7">No transaction yet.</td></tr>'}</tbody></table>`;
}

function ratesTable(v: Overview): string {
  const cells = Object.entries(v.rates.rates).map(([k, r]) =>
    `<tr><td>${esc(k)}</td><td>${esc(r)}</td></tr>`
  )
    .join("");
  return `<details><summary>Rate table: units per 1 ${esc(v.rates.base)} (as of ${
    esc(v.rates.asOf)
  })</summary><table><thead><tr><th>Currency</th><th>Rate</th></tr></thead><tbody>${cells}</tbody></table>
<p>Amounts convert exactly in minor units: one rounding, half up, on the exact ratio of two rates.</p></details>`;
}

export function page(
  v: Overview,
  opts: { result: Authorization | null; error: string | null },
): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>QCard issuer test mode</title><link rel="stylesheet" href="/_issuer/issuer.css"></head>
<body><main><h1>QCard issuer — test mode</h1>
<p>Purchases on the app's cards as a merchant would make them: each is decided by the issuer
simulator and appears in the app's Transactions tab after a refresh. JSON: the same URLs with
<code>Accept: application/json</code>; <code>POST /_issuer/purchase</code>, <code>/capture</code>,
<code>/reverse</code>, <code>/refund</code>; or <code>deno task issuer</code>.</p>
${outcome(opts.result, opts.error)}
<h2>New purchase</h2>${purchaseForm(v)}
<h2>Recent transactions</h2>${transactionsTable(v)}
<h2>Cards</h2>${cardsTable(v)}
${ratesTable(v)}</main></body></html>`;
}
