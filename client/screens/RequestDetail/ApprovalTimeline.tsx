import { useSignals } from "@preact/signals-react/runtime";
import type { ApprovalTeam } from "../../shared/contract/requests.ts";
import { t, type TranslationKey } from "../../i18n/index.ts";
import { shortDateTime } from "../../i18n/display.ts";

interface Level {
  level: number;
  teams: ApprovalTeam[];
  status: ApprovalTeam["levelStatus"];
}

/** The approval's levels in order, each with its teams (spec §3 approvals). */
export function levelsOf(teams: readonly ApprovalTeam[]): Level[] {
  const out: Level[] = [];
  for (const team of teams) {
    const l = out.find((x) => x.level === team.level);
    if (l) l.teams.push(team);
    else out.push({ level: team.level, teams: [team], status: team.levelStatus ?? null });
  }
  return out.sort((a, b) => a.level - b.level);
}

/**
 * The request's approval timeline: each level, its state, who decided what and when, and
 * for the open level who it is waiting for (its approvers who have not decided yet). Before
 * submission, the approvers each level will ask.
 */
export function ApprovalTimeline(props: { teams: ApprovalTeam[] }) {
  useSignals();
  const levels = levelsOf(props.teams);
  if (!levels.length) return <p className="empty">{t("detail.noApprovers")}</p>;
  return (
    <ol className="timeline">
      {levels.map((l, i) => {
        const decisions = l.teams.flatMap((x) => x.decisions ?? []);
        const decided = new Set(decisions.map((d) => d.name));
        const people = [
          ...new Set(l.teams.flatMap((x) => x.teamUsers.map((u) => `${u.fname} ${u.lname}`))),
        ];
        const waiting = people.filter((p) => !decided.has(p));
        const state = l.status ?? "none";
        return (
          <li key={l.level} className={`timeline-level timeline-${state}`}>
            <span className="timeline-dot" aria-hidden="true" />
            <strong>
              {t("detail.level", { level: l.level })}: {l.teams.map((x) => x.teamName).join(", ")}
            </strong>
            {l.status
              ? (
                <span className="timeline-state">
                  {t(`timeline.${l.status}` as TranslationKey)}
                </span>
              )
              : null}
            {decisions.length
              ? (
                <ul className="timeline-decisions">
                  {decisions.map((d, j) => (
                    <li key={j}>
                      {t(`timeline.${d.statusCode}By` as TranslationKey, { name: d.name })}
                      {d.delegated ? ` (${t("timeline.delegated")})` : ""}
                      {" · "}
                      <time dateTime={d.at}>{shortDateTime(Date.parse(d.at))}</time>
                    </li>
                  ))}
                </ul>
              )
              : null}
            {l.status === "open" && waiting.length
              ? (
                <span className="timeline-waiting">
                  {t("timeline.waitingFor", { names: waiting.join(", ") })}
                </span>
              )
              : null}
            {l.status === "pending"
              ? (
                <span className="timeline-waiting">
                  {t("timeline.after", { level: levels[i - 1]?.level ?? l.level - 1 })}
                </span>
              )
              : null}
            {!l.status ? <span>{people.join(", ")}</span> : null}
          </li>
        );
      })}
    </ol>
  );
}
