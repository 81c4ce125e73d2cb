import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { askQuestion, messageOf, sendAnswer } from "../../actions/session.ts";
import { SidePanel } from "../../components/SidePanel.tsx";
import { t } from "../../i18n/index.ts";
import { working } from "../../state/session.ts";
import { panel } from "../../state/ui.ts";

/** spec §5: activation email needs at least 5 characters, the secret answer at least 1. */
export const MIN_EMAIL = 5;
export const MIN_ANSWER = 1;

/** spec §2/§4 lost activation: email → secret question → answer → a new activation email. */
export function LostActivationPanel() {
  useSignals();
  const open = panel.value === "lost";
  const [email, setEmail] = useState("");
  const [answer, setAnswer] = useState("");
  const [question, setQuestion] = useState<{ id: string; text: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const reset = () => {
    setQuestion(null);
    setAnswer("");
    setError(null);
    setDone(null);
  };
  const close = () => {
    panel.value = null;
    reset();
  };
  return (
    <SidePanel open={open} title={t("lost.title")} onBack={close}>
      {done
        ? (
          <div className="form">
            <p role="status" className="success">{done}</p>
            <button type="button" className="primary wide" onClick={close}>{t("common.ok")}</button>
          </div>
        )
        : !question
        ? (
          <StepForm
            prompt={t("lost.emailPrompt")}
            id="lost-email"
            label={t("lost.email")}
            type="email"
            value={email}
            onValue={setEmail}
            minLength={MIN_EMAIL}
            submitLabel={t("lost.send")}
            error={error}
            onSubmit={async () => {
              const r = await askQuestion(email.trim());
              if (r) setQuestion({ id: r.question.id, text: r.question.text });
            }}
            onError={setError}
          />
        )
        : (
          <StepForm
            prompt={t("lost.questionPrompt")}
            question={question.text}
            id="lost-answer"
            label={t("lost.answer")}
            type="text"
            value={answer}
            onValue={setAnswer}
            minLength={MIN_ANSWER}
            submitLabel={t("lost.sendAnswer")}
            error={error}
            onSubmit={async () => {
              const r = await sendAnswer(email.trim(), answer, question.id);
              if (r) setDone(r.message);
            }}
            onError={setError}
          />
        )}
    </SidePanel>
  );
}

/** One step of the flow: a prompt, one labelled input, its error and a submit button. */
function StepForm(props: {
  prompt: string;
  question?: string;
  id: string;
  label: string;
  type: "email" | "text";
  value: string;
  onValue: (v: string) => void;
  minLength: number;
  submitLabel: string;
  error: string | null;
  onSubmit: () => Promise<void>;
  onError: (message: string | null) => void;
}) {
  useSignals();
  return (
    <form
      className="form"
      onSubmit={async (e) => {
        e.preventDefault();
        props.onError(null);
        try {
          await props.onSubmit();
        } catch (err) {
          props.onError(messageOf(err));
        }
      }}
    >
      <p>{props.prompt}</p>
      {props.question ? <p className="question">{props.question}</p> : null}
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={props.type}
        autoComplete={props.type === "email" ? "email" : "off"}
        inputMode={props.type === "email" ? "email" : "text"}
        value={props.value}
        onInput={(e) => props.onValue((e.target as HTMLInputElement).value)}
      />
      {props.error ? <p className="error" role="alert">{props.error}</p> : null}
      <button
        type="submit"
        className="primary wide"
        disabled={props.value.trim().length < props.minLength || working.value}
      >
        {props.submitLabel}
      </button>
    </form>
  );
}
