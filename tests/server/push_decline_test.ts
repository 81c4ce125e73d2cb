/**
 * A card holder's refused-payment push says why and what to do (spec §1 push notifications, §8
 * refused reasons): every decline reason the issuer gives is decoded into what the holder can
 * act on, with advice in all four languages; a purchase on a blocked card pushes "Card blocked:
 * unblock it in the wallet" in the holder's language.
 */
import assert from "node:assert/strict";
import { DECLINE_REASONS, type DeclineCode } from "../../server/issuer/authorization.ts";
import { type DeclineWhy, declineWhy, noticesFor } from "../../server/push/notify.ts";
import { translate } from "../../server/i18n.ts";
import type { TranslationKey } from "../../client/shared/i18n/locales/en.ts";
import { DEMO, withApp } from "../helpers.ts";
import { assertOk, getE, login, postE } from "./api.ts";
import { buy, defineSecure, newCard } from "./purchase_helpers.ts";

const WHY: Record<DeclineCode, DeclineWhy> = {
  card_closed: "closed",
  card_frozen: "frozen",
  card_expired: "expired",
  incorrect_cvc: "cvc",
  cvc_locked: "cvc",
  expiry_mismatch: "verification",
  three_ds_not_enrolled: "threeDSecure",
  three_ds_missing: "authentication",
  three_ds_failed: "authentication",
  three_ds_locked: "authentication",
  mcc_blocked: "mcc",
  currency_unsupported: "invalidCurrency",
  insufficient_funds: "exceedsMax",
  budget_not_funded: "exceededMax",
};

Deno.test("[push decline] every issuer decline reason is decoded into what the holder can do", () => {
  for (const [code, reason] of Object.entries(DECLINE_REASONS)) {
    assert.equal(declineWhy(reason), WHY[code as DeclineCode], `${code}: ${reason}`);
  }
  // Other issuers' wordings of an unusable card, and reasons the spec does not name.
  assert.equal(declineWhy("Invalid card status/card paused by holder"), "frozen");
  assert.equal(declineWhy("Invalid card/unknown state"), "invalidCard");
  assert.equal(declineWhy("Invalid merchant/no such terminal"), "other");
  assert.equal(declineWhy("Do not honour"), "other");
  assert.equal(declineWhy(null), "other");
});

Deno.test("[push decline] each reason's advice exists in English, French, German and Spanish", async () => {
  const whys = [...new Set([...Object.values(WHY), "invalidCard", "other"])] as DeclineWhy[];
  const en = await translate("en");
  for (const locale of ["en", "fr", "de", "es"]) {
    const t = await translate(locale);
    for (const why of whys) {
      const key = `push.declined.${why}` as TranslationKey;
      const text = t(key);
      assert.ok(text && text !== key, `${locale} ${key}`);
      // Why, then what to do.
      assert.match(text, /:/, `${locale} ${key}: "${text}"`);
      if (locale !== "en") assert.notEqual(text, en(key), `${locale} ${key} is English`);
    }
  }
});

Deno.test(
  "[push decline] a purchase on a blocked card: 'Card blocked: unblock it in the wallet', in the holder's language",
  withApp(async (api) => {
    const { h, oid: userOid } = await login(api, DEMO.employee);
    await defineSecure(api, h);
    const card = await newCard(api, h);
    assertOk(await postE(api, h, "pwafreezecard", { oid: card.oid }));
    const no = await buy(api, card, { amount: "12.00" });
    assert.equal(no.approved, false);
    const event = {
      type: "card.purchase" as const,
      userOid,
      transactionOid: no.transactionOid,
      approved: false,
    };
    let [n] = await noticesFor(api.deps, event);
    assert.equal(n.payload.title, "Card payment refused");
    assert.equal(
      n.payload.body,
      "€12.00 at Café de la Gare. Card blocked: unblock it in the wallet, then pay again.",
    );
    assert.equal(n.urgency, "high");
    assert.equal(n.payload.actions, undefined, "nothing to photograph");
    // The holder switches to Spanish (Options): the next push speaks it.
    assertOk(await getE(api, h, "pwatranslation?locale=es"));
    [n] = await noticesFor(api.deps, event);
    assert.equal(n.payload.title, "Pago con tarjeta rechazado");
    assert.equal(
      n.payload.body,
      "12,00\u00a0€ en Café de la Gare. Tarjeta bloqueada: desbloquéela en la cartera y vuelva a pagar.",
    );
  }),
);
