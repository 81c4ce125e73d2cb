import { useSignals } from "@preact/signals-react/runtime";
import {
  setVatAccounting,
  setVatCountry,
  setVatLineCode,
  setVatPanelFlag,
  setVatType,
  submitVat,
  vatProblems,
} from "../../actions/vat.ts";
import { locale, t, type TranslationKey } from "../../i18n/index.ts";
import { amountDisplay, inputAmount } from "../../i18n/display.ts";
import { VAT_AMOUNT_MAX_CHARS } from "../../shared/vat.ts";
import { accounting, vatCountries, vatDraft } from "../../state/receipts.ts";
import { accountingCodes, receiptTypes, vatCodes } from "../../state/lookups.ts";
import { working } from "../../state/session.ts";
import { txDetail } from "../../state/transactions.ts";
import { PanelFooter } from "../../components/PanelFooter.tsx";

/** A labelled select; a required empty one is highlighted (spec §5). */
function Select(props: {
  id: string;
  label: string;
  value: string | null;
  options: { value: string; label: string }[];
  onChange: (v: string | null) => void;
  disabled?: boolean;
  required?: boolean;
  describedBy?: string;
}) {
  const missing = !!props.required && !props.value;
  return (
    <div className={`form-row${missing ? " required-missing" : ""}`}>
      <label htmlFor={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value ?? ""}
        disabled={props.disabled}
        aria-invalid={missing || undefined}
        aria-required={props.required || undefined}
        aria-describedby={props.describedBy}
        onChange={(e) => props.onChange(e.currentTarget.value || null)}
      >
        <option value="">{t("vat.none")}</option>
        {props.options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </div>
  );
}

/**
 * spec §2 VAT side panel — simple form (the flag) or advanced form (country, up to 3 lines) —
 * with the receipt type and accounting code, and every spec §4/§5 rule: a country change
 * resets codes and amounts, a chosen code fills its amount read-only, clearing it clears the
 * amount, amounts hold at most 6 characters, OK is disabled while a required field is
 * missing (and absent on a read-only transaction), and required empty selects are
 * highlighted. Fields are stacked, none wider than a 360 px screen.
 */
export function VatBody() {
  useSignals();
  const d = vatDraft.value;
  const tx = txDetail.value?.tx;
  if (!d || !tx) return null;
  const s = accounting.value;
  const advanced = s.vatMode === "advanced";
  const ro = d.readOnly || working.value;
  const problems = vatProblems(d);
  const codes = vatCodes.value.filter((c) => c.countryid === d.countryId);
  return (
    <form
      id="form-vat"
      className="form vat-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submitVat();
      }}
    >
      <p className="hint">
        {t("vat.amountOf", { amount: amountDisplay(tx, locale.value).amount })}
      </p>
      {d.readOnly ? <p className="hint" role="status">{t("vat.readOnly")}</p> : null}
      {d.suggested?.lines.length
        ? (
          <p className="hint vat-suggested" role="status">
            {d.suggested.source === "receipt"
              ? t("vat.suggestedReceipt")
              : t("vat.suggestedCountry", {
                country: vatCountries.value.find((c) => c.value === d.countryId)?.label ??
                  d.countryId ?? "",
              })}
          </p>
        )
        : null}
      {advanced
        ? (
          <>
            <Select
              id="vat-country"
              label={t("vat.country")}
              value={d.countryId}
              options={vatCountries.value}
              disabled={ro}
              onChange={setVatCountry}
            />
            {d.lines.map((line, i) => {
              const n = i + 1;
              // Lines fill in order: a line opens once the one before has a code.
              const open = i === 0 || !!d.lines[i - 1].oid || !!line.oid;
              const suggested = !!d.suggested?.lines.includes(i);
              const unsure = !!d.suggested?.unsure.includes(i);
              return (
                <div
                  key={n}
                  className={`vat-line${suggested ? " suggested" : ""}${unsure ? " unsure" : ""}`}
                >
                  {suggested || unsure
                    ? (
                      <p className="vat-mark" id={`vat-mark-${n}`}>
                        {t(suggested ? "vat.suggestedLine" : "vat.unsureLine")}
                      </p>
                    )
                    : null}
                  <Select
                    id={`vat-code-${n}`}
                    label={t("vat.code", { line: n })}
                    value={line.oid}
                    options={codes.map((c) => ({ value: c.oid, label: c.description }))}
                    disabled={ro || !d.countryId || !open}
                    describedBy={suggested || unsure ? `vat-mark-${n}` : undefined}
                    onChange={(v) => setVatLineCode(i, v)}
                  />
                  <div className="form-row">
                    <label htmlFor={`vat-amount-${n}`}>{t("vat.amount", { line: n })}</label>
                    <input
                      id={`vat-amount-${n}`}
                      type="text"
                      inputMode="decimal"
                      maxLength={VAT_AMOUNT_MAX_CHARS}
                      value={inputAmount(line.amount)}
                      readOnly
                      disabled={!line.oid}
                    />
                  </div>
                </div>
              );
            })}
          </>
        )
        : (
          <fieldset className="form-row">
            <legend>{t("vat.flag")}</legend>
            {([null, false, true] as const).map((f) => {
              const key = f === null ? "unknown" : String(f);
              return (
                <label key={key} className="check-row">
                  <input
                    type="radio"
                    name="vat-flag"
                    checked={d.flag === f}
                    disabled={ro}
                    onChange={() => setVatPanelFlag(f)}
                  />
                  <span>{t(`vat.flag.${key}` as TranslationKey)}</span>
                </label>
              );
            })}
          </fieldset>
        )}
      {s.typeEnabled !== "false" && d.suggested?.type
        ? <p className="vat-mark" id="vat-type-mark">{t("vat.suggestedType")}</p>
        : null}
      {s.typeEnabled !== "false"
        ? (
          <Select
            id="vat-type"
            label={t("vat.type")}
            value={d.typeOid}
            options={receiptTypes.value}
            disabled={ro}
            required={s.typeEnabled === "required"}
            describedBy={d.suggested?.type ? "vat-type-mark" : undefined}
            onChange={setVatType}
          />
        )
        : null}
      {s.accountingCodeEnabled !== "false"
        ? (
          <Select
            id="vat-accounting"
            label={t("vat.accountingCode")}
            value={d.accountingCodeOid}
            options={accountingCodes.value}
            disabled={ro}
            required={s.accountingCodeEnabled === "required"}
            onChange={setVatAccounting}
          />
        )
        : null}
      {d.error ? <p className="form-error" role="alert">{d.error}</p> : null}
      {d.readOnly ? null : (
        <PanelFooter>
          <button
            type="submit"
            form="form-vat"
            className="primary wide sticky-action"
            disabled={ro || problems.length > 0}
            aria-description={problems.map((p) => t(p)).join(". ") || undefined}
          >
            {t("common.ok")}
          </button>
        </PanelFooter>
      )}
    </form>
  );
}
