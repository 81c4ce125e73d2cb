/**
 * `deno task issuer`: the issuer's test mode from the command line, on the configured KV
 * (KV_PATH, ISSUER_KEY as the server reads them). Each event is recorded in the app as the
 * /_issuer page records it; a running server shows it at the next refresh. Like the page,
 * it refuses to run with APP_ENV=production.
 *
 *   deno task issuer cards
 *   deno task issuer purchase --card 4242 --amount 12.50 [--currency USD] --merchant "Café"
 *        [--city Lyon] [--country FR] [--mcc 5812] [--capture] [--3ds PASSWORD | --challenge]
 *        [--pan … --cvc … --expiry MM/YY]
 *   deno task issuer capture|reverse|refund TRANSACTION [--amount 5] [--final]
 *   deno task issuer refund --card 4242 --amount 5 --merchant "Café"   (a credit, unlinked)
 *   deno task issuer transactions [--limit 20]
 *   deno task issuer rates
 */
import { parseArgs } from "node:util";
import { parseConfig } from "../config.ts";
import type { Deps } from "../domain/env.ts";
import { HttpError } from "../errors.ts";
import { IssuerError } from "../issuer/mod.ts";
import { EventInput, parseInput, PurchaseInput, RefundInput } from "../domain/purchase_input.ts";
import { capture, purchase, refund, reverse, type TestModeResult } from "../domain/purchases.ts";
import { overview } from "../testmode/overview.ts";

const USAGE = `usage: deno task issuer cards | transactions [--limit N] | rates
       deno task issuer purchase --card LAST4|OID --amount 12.50 --merchant NAME [options]
       deno task issuer capture|reverse|refund TRANSACTION_OID|iauth_… [--amount A] [--final]`;

const OPTIONS = {
  card: { type: "string" },
  pan: { type: "string" },
  cvc: { type: "string" },
  expiry: { type: "string" },
  amount: { type: "string" },
  currency: { type: "string" },
  merchant: { type: "string" },
  city: { type: "string" },
  country: { type: "string" },
  mcc: { type: "string" },
  capture: { type: "boolean" },
  final: { type: "boolean" },
  "3ds": { type: "string" },
  challenge: { type: "boolean" },
  limit: { type: "string" },
} as const;

function show(r: TestModeResult): string {
  const amount = `${r.originalAmount} ${r.originalCurrency}` +
    (r.originalCurrency === r.currency ? "" : ` = ${r.amount} ${r.currency} at ${r.exchangeRate}`);
  const why = r.refusedReason ? ` — ${r.refusedReasonDecoded}: ${r.refusedReason}` : "";
  return `${r.status}${why}\n  ${amount}; captured ${r.captured}, refunded ${r.refunded}; ` +
    `card available ${r.available}\n  transaction ${
      r.transactionOid ?? "-"
    }  authorization ${r.authorizationId}`;
}

/** Runs one command; returns the exit code. */
export async function runIssuerCli(
  args: string[],
  deps: Deps,
  print: (line: string) => void = console.log,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    print(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values: o, positionals: [cmd, target] } = parsed;
  const ids = target?.startsWith("iauth_")
    ? { authorizationId: target }
    : target
    ? { transactionOid: target }
    : {};
  try {
    if (cmd === "cards" || cmd === "transactions" || cmd === "rates") {
      const v = await overview(deps, Number(o.limit ?? 20));
      if (cmd === "rates") {
        print(`units per 1 ${v.rates.base} (as of ${v.rates.asOf})`);
        for (const [k, r] of Object.entries(v.rates.rates)) print(`  ${k} ${r}`);
      } else if (cmd === "cards") {
        for (const c of v.cards) {
          print(
            `${c.cardNumber}  ${c.requestId ?? "-"}  ${c.holder}  ${c.status}  ` +
              `${c.available}/${c.allocated} ${c.currency}  oid ${c.oid ?? "-"}`,
          );
        }
      } else {
        for (const t of v.transactions) {
          print(
            `${t.createdAt}  •••• ${t.cardLast4}  ${t.merchant.name}  ` +
              `${t.originalAmount} ${t.originalCurrency}  ${t.status}` +
              `${t.refusedReason ? ` (${t.refusedReason})` : ""}  ${
                t.transactionOid ?? t.authorizationId
              }`,
          );
        }
      }
      return 0;
    }
    const base = { ...ids, amount: o.amount, final: o.final, currency: o.currency };
    const merchant = {
      merchantName: o.merchant,
      merchantCity: o.city,
      merchantCountry: o.country,
      mcc: o.mcc,
    };
    const card = { card: o.card, pan: o.pan, cvc: o.cvc, expiry: o.expiry };
    let r: TestModeResult;
    if (cmd === "purchase") {
      r = await purchase(
        deps,
        parseInput(PurchaseInput, {
          ...card,
          ...merchant,
          amount: o.amount,
          currency: o.currency,
          capture: o.capture,
          threeDS: o.challenge,
          threeDSPassword: o["3ds"],
        }),
      );
    } else if (cmd === "capture") r = await capture(deps, parseInput(EventInput, base));
    else if (cmd === "reverse") r = await reverse(deps, parseInput(EventInput, base));
    else if (cmd === "refund") {
      r = await refund(deps, parseInput(RefundInput, { ...base, ...card, ...merchant }));
    } else {
      print(USAGE);
      return 2;
    }
    print(show(r));
    return r.approved ? 0 : 1;
  } catch (err) {
    if (!(err instanceof HttpError || err instanceof IssuerError)) throw err;
    print(`refused: ${err.message}`);
    return 1;
  }
}

if (import.meta.main) {
  const { makeDeps } = await import("./boot.ts");
  const config = parseConfig(Deno.env.toObject());
  if (config.APP_ENV === "production") {
    console.error("The issuer's test mode is for development: APP_ENV is production.");
    Deno.exit(2);
  }
  const deps = await makeDeps(config, undefined, { log: (l) => console.error(l) });
  let code = 1;
  try {
    code = await runIssuerCli(Deno.args, deps);
  } finally {
    deps.store.kv.close();
  }
  Deno.exit(code);
}
