/**
 * How the simulator decides an authorization (spec §8 refused reasons), one step at a time in the
 * fixed order: (1) the card's own state, (2) the details a merchant sent (CVC, expiry), (3) 3-D
 * Secure when the merchant asks for it, (4) the merchant category against the card's blocked ones,
 * (5) the amount against what is available. The first step that fails is the reason. Steps 2 and 3
 * read secrets and count the answers (attempts.ts); they depend on nothing that changes between
 * tries, so a decision retried after a write conflict reuses their outcome.
 */
import type { AuthorizeParams, DeclineCode } from "./authorization.ts";
import { giveBackTry, sameSecret, spendTry } from "./attempts.ts";
import { convert, type FxTerms, type RateTable, termsFor } from "./fx.ts";
import { type CardRecord, K } from "./records.ts";
import { reveal } from "./three_ds.ts";
import { type Sealed, unseal } from "./vault.ts";

export interface DecideDeps {
  kv: Deno.Kv;
  key: CryptoKey;
  now: () => number;
  rates: RateTable;
}

/** Outcomes of the secret-reading steps, computed once per authorization. */
export interface SecretSteps {
  details?: DeclineCode | null;
  threeDS?: { code: DeclineCode | null; outcome: "not_requested" | "passed" | "failed" };
}

/** Step 1: a closed, frozen or expired card takes nothing. */
export function cardStep(card: CardRecord, today: string): DeclineCode | null {
  if (card.status === "closed") return "card_closed";
  if (card.status === "frozen") return "card_frozen";
  if (today > card.validUntil) return "card_expired";
  return null;
}

/** Step 2: the CVC (counted before it is compared) and the expiry, each only when sent. */
export async function detailsStep(
  d: DecideDeps,
  card: CardRecord,
  p: AuthorizeParams,
): Promise<DeclineCode | null> {
  if (p.cvc !== undefined) {
    if (!(await spendTry(d.kv, "cvc", card.token, d.now()))) return "cvc_locked";
    const vault = await d.kv.get<Sealed>(K.vault(card.token));
    const secret = vault.value ? await unseal(d.key, card.token, vault.value) : null;
    if (!secret || !(await sameSecret(p.cvc, secret.cvc))) return "incorrect_cvc";
    await giveBackTry(d.kv, "cvc", card.token);
  }
  if (p.expMonth !== undefined || p.expYear !== undefined) {
    const year = p.expYear !== undefined && p.expYear < 100 ? 2000 + p.expYear : p.expYear;
    if (p.expMonth !== card.expMonth || year !== card.expYear) return "expiry_mismatch";
  }
  return null;
}

/**
 * Step 3: when the merchant asks for a challenge, the cardholder's current password (held
 * by this issuer, three_ds.ts) must be the answer; each answer is counted per cardholder.
 */
export async function threeDSStep(
  d: DecideDeps,
  card: CardRecord,
  p: AuthorizeParams,
): Promise<NonNullable<SecretSteps["threeDS"]>> {
  if (!p.threeDS) return { code: null, outcome: "not_requested" };
  const failed = (code: DeclineCode) => ({ code, outcome: "failed" as const });
  const holder = card.cardholderId;
  const stored = holder ? await reveal(d.kv, d.key, holder) : null;
  if (!holder || !stored) return failed("three_ds_not_enrolled");
  const answer = p.threeDS.password;
  if (!answer) return failed("three_ds_missing");
  if (!(await spendTry(d.kv, "3ds", holder, d.now()))) return failed("three_ds_locked");
  if (!(await sameSecret(answer, stored))) return failed("three_ds_failed");
  await giveBackTry(d.kv, "3ds", holder);
  return { code: null, outcome: "passed" };
}

/** The purchase in the card's currency (terms null: same currency or not in the table). */
export function price(rates: RateTable, card: CardRecord, p: AuthorizeParams) {
  const terms = p.currency === card.currency ? null : termsFor(rates, p.currency, card.currency);
  const priced = p.currency === card.currency || terms !== null;
  return { terms, amount: priced ? convert(terms, p.amount) : 0, priced };
}

/** Steps 4 and 5: the merchant category, then the converted amount against the balance. */
export function spendStep(
  rates: RateTable,
  card: CardRecord,
  p: AuthorizeParams,
): { code: DeclineCode | null; terms: FxTerms | null; amount: number } {
  const { terms, amount, priced } = price(rates, card, p);
  const blocked = card.spendingControls?.blockedCategories ?? [];
  if (blocked.includes(p.merchant.mcc)) return { code: "mcc_blocked", terms, amount };
  if (!priced) return { code: "currency_unsupported", terms, amount };
  const available = card.amountFunded - card.amountSpent;
  if (amount <= available) return { code: null, terms, amount };
  // Money the card will have once its remaining budget lines fund.
  const planned = card.amountAllocated - card.amountSpent;
  const unfunded = card.lines.some((l) => !l.funded);
  const code = unfunded && amount <= planned ? "budget_not_funded" : "insufficient_funds";
  return { code, terms, amount };
}
