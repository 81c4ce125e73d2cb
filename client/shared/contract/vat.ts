import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { ArchiveParam, Words } from "./requests.ts";
import { Transaction } from "./transactions.ts";
import { DOTAX_VALUES, MAX_VAT_LINES } from "../vat.ts";

// VAT and accounting of card transactions (spec §2 VAT choice and side panel,
// §3 Transaction VAT fields and VAT code, §4 VAT flag, §5 VAT panel, §7 the calls below).

const E = "/scmapi/expense";
const Oid = z.string().check(z.minLength(1), z.maxLength(64));
const OptOid = z.optional(z.nullable(z.string().check(z.maxLength(64))));
const OptAmount = z.optional(z.nullable(z.number()));

/** spec §3 VAT code. */
export const VatCode = z.object({
  oid: z.string(),
  description: z.string(),
  descriptions: Words,
  percentage: z.number(),
  countryid: z.string(),
});
export type VatCode = z.infer<typeof VatCode>;

/** spec §3 Combo item (receipt types and accounting codes). */
export const ComboItem = z.object({ value: z.string(), label: z.string(), labels: Words });
export type ComboItem = z.infer<typeof ComboItem>;

/**
 * One transaction of pwaupdatereviewedtransactions (spec §7). Loose: a line past the third
 * (vat4Oid…) is kept so the server refuses it (spec §9 up to 3) instead of dropping it.
 */
export const ReviewLine = z.looseObject({
  oid: Oid,
  archive: z.optional(z.boolean()),
  vat1Oid: OptOid,
  vat2Oid: OptOid,
  vat3Oid: OptOid,
  vat1Amount: OptAmount,
  vat2Amount: OptAmount,
  vat3Amount: OptAmount,
  typeOid: OptOid,
  accountingCodeOid: OptOid,
  countryId: z.optional(z.nullable(z.string().check(z.maxLength(8)))),
});
export type ReviewLine = z.infer<typeof ReviewLine>;

export const vat = {
  /** spec §7 pwavatcodes (optionally ?countryid=FR): the organisation's VAT codes. */
  vatCodes: endpoint({
    method: "GET",
    path: `${E}/pwavatcodes`,
    auth: "bearer",
    query: z.object({ countryid: z.optional(z.string().check(z.maxLength(8))) }),
    response: z.object({ vatcodes: z.array(VatCode) }),
  }),
  /** spec §7 pwaaccountingcodes. */
  accountingCodes: endpoint({
    method: "GET",
    path: `${E}/pwaaccountingcodes`,
    auth: "bearer",
    response: z.object({ accountingcodes: z.array(ComboItem) }),
  }),
  /** spec §7 pwareceipttypes. */
  receiptTypes: endpoint({
    method: "GET",
    path: `${E}/pwareceipttypes`,
    auth: "bearer",
    response: z.object({ receipttypes: z.array(ComboItem) }),
  }),
  /** spec §7 pwasetreceiptdotax?oid&dotax&archive (a change by GET): the VAT flag of §4. */
  setDoTax: endpoint({
    method: "GET",
    path: `${E}/pwasetreceiptdotax`,
    auth: "bearer",
    query: z.object({ oid: Oid, dotax: z.enum(DOTAX_VALUES), archive: ArchiveParam }),
    response: z.object({ transaction: Transaction }),
  }),
  /**
   * spec §7 pwaupdatereviewedtransactions: checks every line (codes of the chosen country,
   * at most 3, each amount = amount × p / (100 + p) to the cent, their sum not above the
   * amount, accounting code and receipt type per the organisation's settings), then marks
   * the transactions reviewed and read-only. All or nothing.
   */
  review: endpoint({
    method: "POST",
    path: `${E}/pwaupdatereviewedtransactions`,
    auth: "bearer",
    body: z.object({
      transactions: z.array(ReviewLine).check(z.minLength(1), z.maxLength(50)),
    }),
    response: z.object({ transactions: z.array(Transaction) }),
  }),
} as const;

export { MAX_VAT_LINES };
