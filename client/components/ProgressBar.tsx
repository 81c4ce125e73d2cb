import { t } from "../i18n/index.ts";

/** spec §2 document panel progress bar, §4 'progress percent shows' during an upload. */
export function ProgressBar(props: { percent: number; name: string }) {
  const p = Math.max(0, Math.min(100, Math.round(props.percent)));
  return (
    <div className="upload-progress">
      <div
        className="progress-track"
        role="progressbar"
        aria-label={t("docs.progress", { name: props.name })}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={p}
      >
        <div className="progress-fill" style={{ width: `${p}%` }} />
      </div>
      <span className="progress-percent" aria-hidden="true">{p} %</span>
    </div>
  );
}
