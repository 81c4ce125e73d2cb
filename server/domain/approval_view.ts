import type { AccountAmount, ReadOnly } from "../../client/shared/contract/approvals.ts";
import { convert, exponentOf, parseMinor, type RateTable, termsFor } from "../issuer/mod.ts";
import type { ReadOnlyWhy } from "./approval_rules.ts";

/**
 * What the approval detail shows beside the approval itself so the approver does not decide
 * blind (spec §2 approval detail): the amount in the approval account's currency, and why
 * the caller cannot decide it.
 */

/**
 * The approval's amount in its account's currency at the issuer's rates (the ones card
 * purchases are converted with), exact to the minor unit; null when the currencies are the
 * same or the table lacks one of them.
 */
export function inAccountCurrency(
  rates: RateTable,
  amount: number,
  from: string,
  to: string | undefined,
): AccountAmount | null {
  if (!to || to === from) return null;
  const terms = termsFor(rates, from, to);
  const minor = parseMinor(amount, from);
  if (!terms || minor === null) return null;
  try {
    return {
      amount: convert(terms, minor) / 10 ** exponentOf(to),
      currency: to,
      rate: terms.rate,
      asOf: rates.asOf,
    };
  } catch {
    return null; // too large to convert: the detail shows the request's own amount only
  }
}

/** The reason as the contract carries it: the decider by name, times in ISO 8601. */
export function readOnlyOf(
  why: ReadOnlyWhy | null,
  nameOf: (userOid: string) => string,
): ReadOnly | null {
  if (!why) return null;
  const { byOid, at, ...rest } = why;
  return {
    ...rest,
    ...(byOid ? { by: nameOf(byOid) } : {}),
    ...(at !== undefined ? { at: new Date(at).toISOString() } : {}),
  };
}
