import { formatMoney } from "../shared/intl.ts";

/**
 * How messages name a request or an approval: by its purpose and amount, the words people
 * know it by ("Client visit in Lyon (320.50 €)"), not its internal id (AP000009.2).
 */
export function requestWords(
  r: { purpose: string; amount: number; pricingCurrency?: string | null },
  locale: string,
): string {
  const amount = formatMoney(r.amount, r.pricingCurrency, locale);
  return r.purpose.trim() ? `${r.purpose.trim()} (${amount})` : amount;
}
