import { useEffect, useRef } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import {
  currentType,
  draftAmount,
  saveDraftEdit,
  setAccount,
  setCostCenter,
  setField,
  setType,
  submitCreate,
  typesReady,
} from "../../actions/request_form.ts";
import { FieldButton, FieldError } from "../../components/FieldButton.tsx";
import { locale, t } from "../../i18n/index.ts";
import { formatMoney, inputAmount } from "../../i18n/display.ts";
import { currencies, draft, fieldErrors, formError, refusedSubmits } from "../../state/requests.ts";
import { accounts, typesByAccount } from "../../state/lookups.ts";
import { working } from "../../state/session.ts";
import { openSheet } from "../../state/ui.ts";
import { choose, CodeFields } from "./CodeFields.tsx";
import { FooterSubmit } from "../../components/PanelFooter.tsx";

/**
 * spec §2 create request: account (when more than one), type, amount or budget, currency,
 * purpose, optional codes, vendor and url; submit asks for confirmation. spec §5 messages
 * all show at once, each under its field (aria-invalid, aria-describedby), and the first
 * field in error gets the focus, scrolled into view.
 */
export function CreateRequestBody(props: { editing?: boolean }) {
  useSignals();
  const d = draft.value;
  const loc = locale.value;
  const type = currentType();
  // spec §5: amount is disabled in budget mode and for recurring types.
  const amountDisabled = d.budgetMode || !!type?.isRecurring;
  const plan = d.plan;
  const opt = (label: string) => t("field.optional", { label });
  const errors = fieldErrors.value;
  const form = useRef<HTMLFormElement>(null);
  // After each refused submit (not when a message goes as its field is fixed): the first
  // field in error gets the focus, scrolled into view.
  const refused = refusedSubmits.value;
  useEffect(() => {
    if (!refused) return;
    const first = form.current?.querySelector<HTMLElement>("[aria-invalid=true]");
    if (!first) return;
    first.focus({ preventScroll: true });
    first.scrollIntoView({ block: "center" });
  }, [refused]);
  // The form's own message (offline, the server's refusal) is where the eye is after the
  // confirm: scrolled to the middle, never left under the sticky Submit.
  const message = formError.value;
  const said = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (message) said.current?.scrollIntoView({ block: "center" });
  }, [message]);
  const invalid = (field: keyof typeof errors) =>
    errors[field]
      ? { "aria-invalid": true as const, "aria-describedby": `create-${field}-error` }
      : {};
  return (
    <form
      id="form-create"
      ref={form}
      className="form create-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        // A draft's edit saves with creation's rules; a new request is submitted.
        if (props.editing) saveDraftEdit();
        else submitCreate();
      }}
    >
      {accounts.value.length > 1
        ? (
          <FieldButton
            label={t("field.account")}
            value={accounts.value.find((a) => a.oid === d.accountOid)?.label ?? t("field.choose")}
            onOpen={() =>
              choose(
                t("field.account"),
                accounts.value.map((a) => ({ value: a.oid, label: a.label, detail: a.value })),
                d.accountOid,
                (v) => v && setAccount(v),
              )}
          />
        )
        : null}
      <FieldButton
        id="create-type"
        error={errors.type}
        label={t("field.type")}
        value={type?.description ?? t("field.choose")}
        onOpen={() =>
          void typesReady().then(() =>
            choose(
              t("field.type"),
              (typesByAccount.value[draft.value.accountOid ?? ""] ?? []).map((x) => ({
                value: x.oid,
                label: x.description,
                detail: `${x.minAmount}–${x.maxAmount}`,
              })),
              draft.value.typeOid,
              (v) => v && setType(v),
            )
          )}
      />
      {type && type.allowBudget && !type.isRecurring
        ? (
          <label className="check">
            <input
              type="checkbox"
              checked={d.budgetMode}
              onChange={(e) => setField({ budgetMode: (e.target as HTMLInputElement).checked })}
            />
            {t("create.budgetMode")}
          </label>
        )
        : null}
      <div className="amount-row">
        <label className="grow">
          <span>{t("field.amount")}</span>
          <input
            id="create-amount"
            type="text"
            inputMode="decimal"
            autoComplete="off"
            disabled={amountDisabled}
            {...(amountDisabled ? {} : invalid("amount"))}
            value={amountDisabled ? inputAmount(draftAmount(d)) : d.amountText}
            onInput={(e) => setField({ amountText: (e.target as HTMLInputElement).value })}
          />
        </label>
        <FieldButton
          label={t("field.currency")}
          value={d.currency}
          onOpen={() =>
            choose(
              t("field.currency"),
              currencies.value.map((c) => ({
                value: c.value,
                label: `${c.value} ${c.symbol}`,
                detail: c.label,
              })),
              d.currency,
              (v) => v && setField({ currency: v }),
            )}
        />
      </div>
      {amountDisabled ? null : <FieldError id="create-amount-error" message={errors.amount} />}
      {amountDisabled
        ? (
          <div className="budget-summary">
            <p>
              {plan
                ? t("create.budgetSummary", {
                  count: plan.occurrences,
                  total: formatMoney(draftAmount(d) ?? 0, d.currency, loc),
                })
                : t("create.amountFromBudget")}
            </p>
            <button
              type="button"
              className="secondary"
              onClick={() => openSheet({ kind: "budget" })}
              {...invalid("amount")}
            >
              {plan ? t("create.changeBudget") : t("create.makeBudget")}
            </button>
            <FieldError id="create-amount-error" message={errors.amount} />
          </div>
        )
        : null}
      <CodeFields
        typeOid={d.typeOid}
        purpose={d.purpose}
        costCenterOid={d.costCenterOid}
        GLOid={d.GLOid}
        projectOid={d.projectOid}
        required={false}
        onPurpose={(purpose) => setField({ purpose })}
        onCostCenter={setCostCenter}
        onLedger={(GLOid) => setField({ GLOid })}
        onProject={(projectOid) => setField({ projectOid })}
        purposeError={errors.purpose}
      />
      <label>
        <span>{opt(t("field.vendor"))}</span>
        <input
          type="text"
          maxLength={120}
          value={d.vendor}
          onInput={(e) => setField({ vendor: (e.target as HTMLInputElement).value })}
        />
      </label>
      <label>
        <span>{opt(t("field.vendorUrl"))}</span>
        <input
          type="text"
          inputMode="url"
          autoComplete="url"
          maxLength={500}
          value={d.url}
          onInput={(e) => setField({ url: (e.target as HTMLInputElement).value })}
          {...invalid("url")}
        />
      </label>
      <FieldError id="create-url-error" message={errors.url} />
      {message ? <p ref={said} className="form-error" role="alert">{message}</p> : null}
      <FooterSubmit form="form-create" disabled={working.value}>
        {props.editing ? t("edit.save") : t("create.submit")}
      </FooterSubmit>
    </form>
  );
}
