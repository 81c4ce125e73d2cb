import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { setField } from "../../actions/request_form.ts";
import { FieldButton } from "../../components/FieldButton.tsx";
import { locale, t, type TranslationKey } from "../../i18n/index.ts";
import { formatMoney, shortDate } from "../../i18n/display.ts";
import { type BudgetPeriod, budgetTotal, checkPlan, generateBudget } from "../../shared/budget.ts";
import { isoDay } from "../../shared/dates.ts";
import { parseAmount } from "../../shared/money.ts";
import { draft } from "../../state/requests.ts";
import { openSheet } from "../../state/ui.ts";
import { PanelFooter } from "../../components/PanelFooter.tsx";

/**
 * spec §2 budget creation: period, start date (date picker), amount per occurrence,
 * occurrences, the generated table of dates and amounts, and Add.
 */
export function BudgetBody(props: { onDone: () => void }) {
  useSignals();
  const d = draft.value;
  const loc = locale.value;
  const [period, setPeriod] = useState<BudgetPeriod>(d.plan?.period ?? "monthly");
  const [start, setStart] = useState(d.plan?.startDate ?? isoDay(Date.now()));
  const [amountText, setAmountText] = useState(d.plan ? String(d.plan.amount) : "");
  const [occText, setOccText] = useState(d.plan ? String(d.plan.occurrences) : "12");
  const plan = {
    period,
    startDate: start,
    amount: parseAmount(amountText),
    occurrences: Number(occText),
  };
  const problem = checkPlan(plan);
  // The dates depend only on period, start and occurrences: they are previewed before an
  // amount is typed, so the person sees what "add" will plan (spec §2 generated table).
  const datesOk = checkPlan({ ...plan, amount: 1 }) === null;
  const lines = datesOk ? generateBudget({ ...plan, amount: problem ? 0 : plan.amount }) : [];
  return (
    <div className="form budget-form">
      <fieldset className="segmented">
        <legend>{t("budget.period")}</legend>
        {(["weekly", "monthly"] as const).map((p) => (
          <label key={p} className={period === p ? "on" : ""}>
            <input
              type="radio"
              name="budget-period"
              checked={period === p}
              onChange={() =>
                setPeriod(p)}
            />
            {t(`budget.${p}`)}
          </label>
        ))}
      </fieldset>
      <FieldButton
        label={t("budget.start")}
        value={shortDate(start, loc)}
        onOpen={() => openSheet({ kind: "date", value: start, onPick: setStart })}
      />
      <label>
        <span>{t("budget.amount")}</span>
        <input
          type="text"
          inputMode="decimal"
          autoComplete="off"
          value={amountText}
          onInput={(e) => setAmountText((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        <span>{t("budget.occurrences")}</span>
        <input
          type="number"
          inputMode="numeric"
          min={1}
          max={120}
          value={occText}
          onInput={(e) => setOccText((e.target as HTMLInputElement).value)}
        />
      </label>
      {problem && amountText
        ? <p className="form-error" role="alert">{t(problem as TranslationKey)}</p>
        : null}
      {lines.length
        ? (
          <>
            <table className="budget-table">
              <caption>
                {t("budget.preview", {
                  count: lines.length,
                  first: shortDate(lines[0].budgetdate, loc),
                  last: shortDate(lines[lines.length - 1].budgetdate, loc),
                })}
              </caption>
              <thead>
                <tr>
                  <th scope="col">{t("budget.date")}</th>
                  <th scope="col">{t("budget.lineAmount")}</th>
                </tr>
              </thead>
              <tbody>
                {lines.map((l) => (
                  <tr key={l.budgetdate}>
                    <td>{shortDate(l.budgetdate, loc)}</td>
                    <td>{problem ? "—" : formatMoney(l.budgetamount, d.currency, loc)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {problem ? null : (
              <p className="budget-total">
                {t("budget.total", { total: formatMoney(budgetTotal(lines), d.currency, loc) })}
              </p>
            )}
          </>
        )
        : null}
      <PanelFooter>
        <button
          type="button"
          className="primary wide sticky-action"
          disabled={!!problem}
          onClick={() => {
            setField({ plan, budgetMode: true });
            props.onDone();
          }}
        >
          {t("budget.add")}
        </button>
      </PanelFooter>
    </div>
  );
}
