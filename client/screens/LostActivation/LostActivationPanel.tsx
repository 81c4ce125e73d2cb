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
          <form
            className="form"
            onSubmit={async (e) => {
              e.preventDefault();
              setError(null);
              try {
                const r = await askQuestion(email.trim());
                if (r) setQuestion({ id: r.question.id, text: r.question.text });
              } catch (err) {
                setError(messageOf(err));
              }
            }}
          >
            <p>{t("lost.emailPrompt")}</p>
            <label htmlFor="lost-email">{t("lost.email")}</label>
            <input
              id="lost-email"
              type="email"
              autoComplete="email"
              inputMode="email"
              value={email}
              onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
            />
            {error ? <p className="error" role="alert">{error}</p> : null}
            <button
              type="submit"
              className="primary wide"
              disabled={email.trim().length < MIN_EMAIL || working.value}
            >
              {t("lost.send")}
            </button>
          </form>
        )
        : (
          <form
            className="form"
            onSubmit={async (e) => {
              e.preventDefault();
              setError(null);
              try {
                const r = await sendAnswer(email.trim(), answer, question.id);
                if (r) setDone(r.message);
              } catch (err) {
                setError(messageOf(err));
              }
            }}
          >
            <p>{t("lost.questionPrompt")}</p>
            <p className="question">{question.text}</p>
            <label htmlFor="lost-answer">{t("lost.answer")}</label>
            <input
              id="lost-answer"
              type="text"
              autoComplete="off"
              value={answer}
              onInput={(e) => setAnswer((e.target as HTMLInputElement).value)}
            />
            {error ? <p className="error" role="alert">{error}</p> : null}
            <button
              type="submit"
              className="primary wide"
              disabled={answer.trim().length < MIN_ANSWER || working.value}
            >
              {t("lost.sendAnswer")}
            </button>
          </form>
        )}
    </SidePanel>
  );
}
