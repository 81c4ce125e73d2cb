import { useEffect, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { ApiError, call, NetworkError } from "../../api/http.ts";
import { postForFile } from "../../api/files.ts";
import { PanelFooter } from "../../components/PanelFooter.tsx";
import { SidePanel } from "../../components/SidePanel.tsx";
import { shortDate } from "../../i18n/display.ts";
import { t } from "../../i18n/index.ts";
import { preferredLanguage } from "../../i18n/language.ts";
import { EXPORT_PATH, type ExportRow, exports } from "../../shared/contract/export.ts";
import { isoDay } from "../../shared/dates.ts";
import { panel, showNotice } from "../../state/ui.ts";

type Format = "csv" | "datev" | "zip";
type Accounts = { oid: string; label: string; currency: string }[];

/** Last calendar month (of the person's calendar): what a month end exports. */
function lastMonth(): { from: string; to: string } {
  const now = new Date();
  const [y, m] = [now.getFullYear(), now.getMonth()];
  return { from: isoDay(Date.UTC(y, m - 1, 1)), to: isoDay(Date.UTC(y, m, 0)) };
}

/** Hands a file to the browser's downloads. */
function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * The accounting export (docs/export.md), for finance users (the menu offers it to them only;
 * the server refuses anyone else): a period by capture date, an account or all, the formats,
 * how receipts sit in the ZIP, "only new"; the file downloads. Past exports below.
 */
export function ExportPanel() {
  useSignals();
  const open = panel.value === "export";
  return (
    <SidePanel open={open} title={t("export.title")} onBack={() => (panel.value = null)}>
      {open ? <ExportBody /> : null}
    </SidePanel>
  );
}

function ExportBody() {
  const [period, setPeriod] = useState(lastMonth);
  const [account, setAccount] = useState("");
  const [formats, setFormats] = useState<Set<Format>>(() => new Set(["csv"]));
  const [layout, setLayout] = useState<"folders" | "flat">("folders");
  const [onlyNew, setOnlyNew] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [accounts, setAccounts] = useState<Accounts>([]);
  const [history, setHistory] = useState<ExportRow[] | null>(null);

  const refresh = () =>
    call(exports.exports).then((r) => {
      setAccounts(r.accounts);
      setHistory(r.exports);
    }).catch((e) => setError(messageOf(e)));
  useEffect(() => {
    refresh();
  }, []);

  const toggle = (f: Format) =>
    setFormats((cur) => {
      const next = new Set(cur);
      if (next.has(f)) next.delete(f);
      else next.add(f);
      return next;
    });

  async function run() {
    setError(null);
    if (!formats.size) return setError(t("export.noFormat"));
    setBusy(true);
    try {
      const { blob, name } = await postForFile(EXPORT_PATH, {
        from: period.from,
        to: period.to,
        account: account || null,
        formats: [...formats],
        onlyNew,
        layout,
      }, preferredLanguage());
      download(blob, name);
      showNotice(t("export.done", { name }));
      await refresh();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  }

  const formatNames: [Format, string][] = [
    ["csv", t("export.csv")],
    ["datev", t("export.datev")],
    ["zip", t("export.zip")],
  ];
  return (
    <div className="form export-form">
      <fieldset className="export-period">
        <legend>{t("export.period")}</legend>
        <label>
          {t("export.from")}
          <input
            type="date"
            value={period.from}
            required
            onChange={(e) => setPeriod({ ...period, from: e.currentTarget.value })}
          />
        </label>
        <label>
          {t("export.to")}
          <input
            type="date"
            value={period.to}
            required
            onChange={(e) => setPeriod({ ...period, to: e.currentTarget.value })}
          />
        </label>
      </fieldset>
      <label>
        {t("export.account")}
        <select value={account} onChange={(e) => setAccount(e.currentTarget.value)}>
          <option value="">{t("export.allAccounts")}</option>
          {accounts.map((a) => <option key={a.oid} value={a.oid}>{a.label}</option>)}
        </select>
      </label>
      <fieldset>
        <legend>{t("export.formats")}</legend>
        {formatNames.map(([f, name]) => (
          <label key={f} className="check">
            <input type="checkbox" checked={formats.has(f)} onChange={() => toggle(f)} />
            {name}
          </label>
        ))}
      </fieldset>
      {formats.has("zip")
        ? (
          <fieldset>
            <legend>{t("export.layout")}</legend>
            {(["folders", "flat"] as const).map((l) => (
              <label key={l} className="check">
                <input
                  type="radio"
                  name="export-layout"
                  checked={layout === l}
                  onChange={() => setLayout(l)}
                />
                {l === "folders" ? t("export.layoutFolders") : t("export.layoutFlat")}
              </label>
            ))}
          </fieldset>
        )
        : null}
      <label className="check">
        <input type="checkbox" checked={onlyNew} onChange={() => setOnlyNew(!onlyNew)} />
        {t("export.onlyNew")}
      </label>
      {error ? <p className="form-error" role="alert">{error}</p> : null}
      <section className="export-history" aria-label={t("export.history")}>
        <h3>{t("export.history")}</h3>
        {history === null ? null : history.length
          ? (
            <ul>
              {history.map((h) => (
                <li key={h.id}>
                  {h.state === "broken"
                    ? t("export.broken", { from: shortDate(h.from), to: shortDate(h.to) })
                    : t("export.historyRow", {
                      from: shortDate(h.from),
                      to: shortDate(h.to),
                      count: h.count,
                      name: h.byName,
                    })}
                </li>
              ))}
            </ul>
          )
          : <p>{t("export.historyNone")}</p>}
      </section>
      <PanelFooter>
        <div className="button-row sticky-action">
          <button type="button" className="primary" disabled={busy} onClick={run}>
            {busy ? t("export.busy") : t("export.run")}
          </button>
        </div>
      </PanelFooter>
    </div>
  );
}

function messageOf(e: unknown): string {
  if (e instanceof NetworkError) return t("export.offline");
  if (e instanceof ApiError) return t("export.failed", { message: e.message });
  return t("export.failed", { message: String(e) });
}
