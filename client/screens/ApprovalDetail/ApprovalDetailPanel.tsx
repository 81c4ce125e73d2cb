import { useEffect, useId, useRef, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import {
  addApprovalComment,
  approvalWords,
  confirmApprovalEdit,
  confirmDecision,
  loadTeams,
  rejectNeedsNote,
  rejectWithNote,
} from "../../actions/approvals.ts";
import { ActionBar, type MoreAction } from "../../components/ActionBar.tsx";
import type { ApprovalRequest } from "../../shared/contract/approvals.ts";
import { Comments } from "../../components/Comments.tsx";
import { ApprovalDeclarations } from "./ApprovalDeclarations.tsx";
import { ApprovalReceiptChecks } from "./ApprovalReceiptChecks.tsx";
import { Field } from "../../components/Field.tsx";
import { locale, t } from "../../i18n/index.ts";
import { shortDate, shortDateTime } from "../../i18n/display.ts";
import { approvalDetail, lastDecision, teams, teamsFailed } from "../../state/approvals.ts";
import { working } from "../../state/session.ts";
import { ApprovalHead, BudgetLines, WhyReadOnly } from "./ApprovalSummary.tsx";
import { NextBar } from "./NextBar.tsx";
import { PanelFooter } from "../../components/PanelFooter.tsx";

type Person = { fname: string; lname: string };
const names = (xs: Person[] | undefined) =>
  xs?.length ? xs.map((u) => `${u.fname} ${u.lname}`).join(", ") : t("approval.noMembers");
const when = (iso: string) => shortDateTime(Date.parse(iso));

/** spec §2 approvers list: by team, with the team's members. */
function Approvers(props: { e: ApprovalRequest }) {
  const seen = new Set<string>();
  const teams = props.e.pollLevels.flatMap((l) => l.pollTeams).filter((x) =>
    !seen.has(x.teamOid) && seen.add(x.teamOid)
  );
  return (
    <section aria-label={t("approval.approvers")}>
      <h3>{t("approval.approvers")}</h3>
      <ul className="approvers">
        {teams.map((x) => (
          <li key={x.teamOid}>
            <strong>{x.teamName}</strong>
            <span>{names(props.e.teamUsers[x.teamOid])}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** spec §2 poll levels: rank, action description, teams, users, delegation team, vote date. */
function PollLevels(props: { e: ApprovalRequest }) {
  const loc = locale.value;
  return (
    <section aria-label={t("approval.pollLevels")}>
      <h3>{t("approval.pollLevels")}</h3>
      <ol className="poll-levels">
        {props.e.pollLevels.map((l) => {
          const votes = props.e.votes.filter((v) => v.level === l.level);
          return (
            <li key={l.level} className={`poll-level level-${l.statusCode}`}>
              <div className="level-head">
                <strong>{t("approval.level", { level: l.level })}: {l.actionDescription}</strong>
                <span className={`status level-status-${l.statusCode}`}>
                  {t(`approval.levelStatus.${l.statusCode}`)}
                </span>
              </div>
              <p className="muted">{t("approval.quota", { count: l.quota })}</p>
              {l.pollTeams.map((pt) => (
                <div key={pt.teamOid} className="poll-team">
                  <strong>{pt.teamName}</strong>
                  <span>{names(props.e.teamUsers[pt.teamOid])}</span>
                  {pt.delegatingTeamName
                    ? <span>{t("approval.delegation", { team: pt.delegatingTeamName })}</span>
                    : null}
                  <span className="muted">
                    {pt.createdate
                      ? t("approval.openedOn", { date: shortDate(pt.createdate, loc) })
                      : t("approval.notOpened")}
                  </span>
                </div>
              ))}
              {votes.map((v, i) => (
                <p key={i} className="level-vote">
                  <VoteIcon status={v.statusCode} /> {v.userFullName} ·{" "}
                  <time>{when(v.createdate)}</time>
                </p>
              ))}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

function VoteIcon(props: { status: "approved" | "rejected" | "reviewed" }) {
  const icon = props.status === "approved" ? "✓" : props.status === "rejected" ? "✗" : "•";
  return (
    <span
      className={`vote-icon vote-${props.status}`}
      role="img"
      aria-label={t(`approval.vote.${props.status}`)}
    >
      {icon}
    </span>
  );
}

/** spec §2 votes list: user full name, approved or rejected icon, date. */
function Votes(props: { e: ApprovalRequest }) {
  return (
    <section aria-label={t("approval.votes")}>
      <h3>{t("approval.votes")}</h3>
      {props.e.votes.length
        ? (
          <ul className="votes">
            {props.e.votes.map((v, i) => (
              <li key={i}>
                <VoteIcon status={v.statusCode} />
                <span className="vote-name">
                  {v.userFullName}
                  {v.isDelegated ? <small>{` (${t("approval.delegated")})`}</small> : null}
                </span>
                <time>{when(v.createdate)}</time>
              </li>
            ))}
          </ul>
        )
        : <p className="empty">{t("approval.noVotes")}</p>}
    </section>
  );
}

/** spec §2 teams (pwaoverviewteams), read when opened. */
function Teams() {
  useSignals();
  const list = teams.value;
  return (
    <details
      className="teams"
      onToggle={(e) => {
        if ((e.target as HTMLDetailsElement).open) void loadTeams();
      }}
    >
      <summary>{t("approval.showTeams")}</summary>
      {list
        ? (
          <ul className="approvers" aria-label={t("approval.teams")}>
            {list.map((x) => (
              <li key={x.teamOid}>
                <strong>{x.teamName}</strong>
                <span>{names(x.teamUsers)}</span>
                {x.delegatingTeamName
                  ? <span>{t("approval.delegation", { team: x.delegatingTeamName })}</span>
                  : null}
              </li>
            ))}
          </ul>
        )
        : teamsFailed.value
        ? <p className="empty">{t("common.networkError")}</p>
        : <p className="loading" role="status">{t("app.loading")}</p>}
    </details>
  );
}

/**
 * spec §2 approval detail: status, amount, approvers, votes, comments, related entity, type,
 * author, approval account, issue date, description, GL code, project code, poll levels,
 * teams; the budget's lines, the amount in the account's currency and, when the person
 * cannot decide it, why. Accept and reject only when new and the flags allow; edit when the
 * person can approve, reject or review. After a decision: the next approval waiting.
 */
export function ApprovalDetailBody() {
  useSignals();
  const d = approvalDetail.value;
  const box = useRef<HTMLDivElement>(null);
  const shown = useRef<string | undefined>(undefined);
  useEffect(() => {
    // "Next" put another approval in this panel: read from its top, the panel announced again.
    if (shown.current && d && shown.current !== d.oid) {
      const panel = box.current?.closest<HTMLElement>(".side-panel");
      panel?.querySelector(".panel-body")?.scrollTo({ top: 0 });
      panel?.focus({ preventScroll: true });
    }
    shown.current = d?.oid;
  }, [d?.oid]);
  if (!d) return null;
  const e = d.entity;
  const r = e ?? d.row;
  if (!r) return <p className="loading" role="status">{t("app.loading")}</p>;
  const loc = locale.value;
  const busy = working.value;
  const isNew = r.statusCode === "new";
  const decidedHere = lastDecision.value?.oid === d.oid;
  return (
    <div className="request-detail approval-detail" ref={box} key={d.oid}>
      <ApprovalHead r={r} e={e} />
      {e?.readOnly ? <WhyReadOnly readOnly={e.readOnly} /> : null}
      {e?.budget?.length ? <BudgetLines lines={e.budget} currency={r.pricingCurrency} /> : null}
      <dl className="kvs">
        <Field label={t("approval.description")}>{r.description}</Field>
        <Field label={t("approval.relatedEntity")}>{r.sourceEntityId}</Field>
        <Field label={t("approval.type")}>{e?.subType.description ?? r.type}</Field>
        <Field label={t("approval.author")}>{r.author}</Field>
        {e ? <Field label={t("approval.account")}>{e.approvalAccount}</Field> : null}
        <Field label={t("approval.issueDate")}>{shortDate(r.issueDate, loc)}</Field>
        <Field label={t("approval.purpose")}>{r.purpose}</Field>
        <Field label={t("approval.costCenter")}>{r.costCenter}</Field>
        <Field label={t("approval.ledger")}>{r.GLCode}</Field>
        <Field label={t("approval.project")}>{r.projectCode}</Field>
      </dl>

      {e ? <Approvers e={e} /> : null}
      {e ? <Votes e={e} /> : null}
      {e ? <PollLevels e={e} /> : null}
      {e ? <Teams /> : null}
      {e ? <ApprovalDeclarations approvalOid={d.oid} /> : null}
      {e ? <ApprovalReceiptChecks approvalOid={d.oid} /> : null}

      <Comments comments={d.comments} onAdd={e && isNew ? addApprovalComment : undefined} />

      {decidedHere
        ? <NextBar oid={d.oid} />
        : e && isNew
        ? <ApprovalActions e={e} busy={busy} />
        : null}
    </div>
  );
}

/**
 * The approval's one sticky action bar, like every detail's: Approve is the primary action;
 * Edit and Reject (in red, saying what it does) are in "More actions". Edit only for who may
 * decide the open level (spec §4/§6): a reviewer's edit would undo other people's votes.
 */
function ApprovalActions(props: { e: ApprovalRequest; busy: boolean }) {
  const { e, busy } = props;
  const more: (MoreAction | false)[] = [
    !!e.canEdit && {
      key: "edit",
      label: t("approval.edit"),
      hint: t("approval.editExtra"),
      disabled: busy,
      onSelect: confirmApprovalEdit,
    },
    e.canReject && {
      key: "reject",
      label: t("approval.reject"),
      hint: t("approval.rejectHint"),
      danger: true,
      disabled: busy,
      onSelect: () => confirmDecision("reject"),
    },
  ];
  return (
    <ActionBar
      primary={e.canApprove
        ? (
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => confirmDecision("approve")}
          >
            {t("approval.approve")}
          </button>
        )
        : null}
      more={more}
    />
  );
}

/**
 * spec §4 rejection: says what is rejected, offers a reason for the requester (required only
 * for a reject-note type without a comment yet), and the red button with the verb confirms.
 */
export function RejectNoteBody() {
  useSignals();
  const [note, setNote] = useState("");
  const busy = working.value;
  const e = approvalDetail.value?.entity;
  const required = rejectNeedsNote();
  const hintId = useId();
  return (
    <form
      id="form-reject"
      className="form"
      onSubmit={(ev) => {
        ev.preventDefault();
        void rejectWithNote(note);
      }}
    >
      {e
        ? <p className="reject-what">{t("approval.rejectConfirm", { what: approvalWords(e) })}</p>
        : null}
      <label>
        <span>{required ? t("approval.rejectNoteTitle") : t("approval.reasonOptional")}</span>
        <textarea
          maxLength={1000}
          value={note}
          required={required}
          aria-describedby={hintId}
          onInput={(ev) => setNote((ev.target as HTMLTextAreaElement).value)}
        />
      </label>
      <p id={hintId} className="hint">
        {required ? t("approval.rejectNoteHelp") : t("approval.reasonShown")}
      </p>
      <PanelFooter>
        <button
          type="submit"
          form="form-reject"
          className="danger-button wide sticky-action"
          disabled={busy || (required && !note.trim())}
        >
          {required ? t("approval.rejectNoteSend") : t("approval.reject")}
        </button>
      </PanelFooter>
    </form>
  );
}
