import { useEffect, useRef, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import type { SecureSettings } from "../../shared/contract/cards.ts";
import {
  hideSecurePassword,
  loadSecure,
  revealSecurePassword,
  saveSecure,
  secureSaved,
  submitSecurePin,
} from "../../actions/secure.ts";
import { Countdown } from "../../components/Countdown.tsx";
import { t } from "../../i18n/index.ts";
import { SECURE_PANEL_TIMEOUT_MS } from "../../lib/cards.ts";
import {
  checkSecure,
  PASSWORD_MAX,
  PASSWORD_PLACEHOLDER,
  PASSWORD_SYMBOLS,
  PHONE_MAX,
  SECURE_PIN_LENGTH,
  type SecureProblem,
  validSecurePin,
} from "../../shared/secure_rules.ts";
import { working } from "../../state/session.ts";
import { revealedPassword, secureSettings } from "../../state/wallet.ts";
import { FooterSubmit } from "../../components/PanelFooter.tsx";

/**
 * spec §2 Secure (3D secure) side panel, §4 flow, §5 rules: password, country prefix and phone;
 * Save is disabled until they pass; a requirePin answer shows the 4-digit PIN field (a wrong
 * PIN marks it invalid with a shake); pinOk closes the panel with a 'saved' confirm. The panel
 * closes by itself after 5 minutes (spec §9).
 */
export function SecureBody(props: { onDone: () => void; generateFor?: string }) {
  useSignals();
  useEffect(() => {
    void loadSecure();
    const timer = setTimeout(props.onDone, SECURE_PANEL_TIMEOUT_MS);
    return () => {
      clearTimeout(timer);
      hideSecurePassword();
    };
  }, []);
  const s = secureSettings.value;
  if (!s) return <p className="loading" role="status">{t("app.loading")}</p>;
  return <SecureForm settings={s} onDone={props.onDone} generateFor={props.generateFor} />;
}

const problemText = (p: SecureProblem) =>
  p === "password"
    ? t("secure.bad.password", { symbols: PASSWORD_SYMBOLS })
    : t(p === "prefix" ? "secure.bad.prefix" : "secure.bad.phone");

function SecureForm(props: {
  settings: SecureSettings;
  onDone: () => void;
  generateFor?: string;
}) {
  useSignals();
  const s = props.settings;
  const original = s.defined ? PASSWORD_PLACEHOLDER : null;
  const [password, setPassword] = useState(s.password);
  const [countryPrefix, setPrefix] = useState(s.countryPrefix || "+33");
  const [phoneNumber, setPhone] = useState(s.phoneNumber);
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [pinStep, setPinStep] = useState(false);
  const [pin, setPin] = useState("");
  const [pinMessage, setPinMessage] = useState<string | null>(null);
  const [shake, setShake] = useState(0);
  const pinRef = useRef<HTMLInputElement>(null);
  // spec §8: a wrong PIN shakes the field (the animation restarts at each wrong PIN).
  useEffect(() => {
    const el = pinRef.current;
    if (!shake || !el) return;
    el.classList.remove("shake");
    void el.offsetWidth;
    el.classList.add("shake");
    el.focus();
  }, [shake]);
  const busy = working.value;
  const problems = checkSecure({ password, countryPrefix, phoneNumber }, original);
  const pinValid = validSecurePin(pin);
  const canSave = !busy && problems.length === 0 && (!pinStep || pinValid);
  const shownPassword = revealedPassword.value;
  const bad = (p: SecureProblem, field: string) =>
    problems.includes(p) && (touched[field] || touched.submit);

  const onSubmit = async () => {
    setTouched({ ...touched, submit: true });
    if (!canSave) return;
    if (!pinStep) {
      const r = await saveSecure({ password, countryPrefix, phoneNumber });
      if (r === "pin") {
        setPinStep(true);
        setPin("");
        setPinMessage(null);
      } else if (r === "saved") secureSaved(props.onDone, props.generateFor);
      return;
    }
    const r = await submitSecurePin(pin);
    if (!r) return;
    if (r.pinOk) return secureSaved(props.onDone, props.generateFor);
    // spec §8: a wrong PIN marks the field invalid with a shake.
    setShake(shake + 1);
    setPin("");
    if (r.attemptsLeft > 0) setPinMessage(t("secure.wrongPin", { count: r.attemptsLeft }));
    else {
      // The change was dropped (too many tries or the PIN expired): save again.
      setPinStep(false);
      setPinMessage(t("secure.pinExpired"));
    }
  };

  const input = (field: string) => ({
    onBlur: () => setTouched({ ...touched, [field]: true }),
  });

  return (
    <form
      id="form-secure"
      className="form secure-form"
      onSubmit={(ev) => {
        ev.preventDefault();
        void onSubmit();
      }}
    >
      <p className="muted">{t("secure.intro")}</p>
      <label>
        <span>{t("secure.password")}</span>
        <input
          type="password"
          autoComplete="new-password"
          maxLength={PASSWORD_MAX}
          value={password}
          readOnly={pinStep}
          aria-invalid={bad("password", "password")}
          onFocus={(ev) => password === PASSWORD_PLACEHOLDER && ev.currentTarget.select()}
          onInput={(ev) => setPassword((ev.target as HTMLInputElement).value)}
          {...input("password")}
        />
      </label>
      {bad("password", "password")
        ? <p className="form-error" role="alert">{problemText("password")}</p>
        : null}
      {s.defined && password === PASSWORD_PLACEHOLDER
        ? shownPassword
          ? (
            <div className="revealed-password">
              <p>
                <span className="muted">{t("secure.currentPassword")}</span>{" "}
                <output className="secret">{shownPassword.password}</output>
              </p>
              <Countdown
                until={shownPassword.until}
                text={(seconds) => t("secure.hiddenIn", { seconds })}
              />
            </div>
          )
          : (
            <button
              type="button"
              className="link"
              disabled={busy}
              onClick={revealSecurePassword}
            >
              {t("secure.showPassword")}
            </button>
          )
        : null}
      <div className="phone-row">
        <label className="prefix">
          <span>{t("secure.prefix")}</span>
          <input
            type="tel"
            inputMode="tel"
            autoComplete="tel-country-code"
            maxLength={5}
            value={countryPrefix}
            readOnly={pinStep}
            aria-invalid={bad("prefix", "prefix")}
            onInput={(ev) => setPrefix((ev.target as HTMLInputElement).value.trim())}
            {...input("prefix")}
          />
        </label>
        <label className="grow">
          <span>{t("secure.phone")}</span>
          <input
            type="tel"
            inputMode="numeric"
            autoComplete="tel-national"
            maxLength={PHONE_MAX}
            value={phoneNumber}
            readOnly={pinStep}
            aria-invalid={bad("phone", "phone")}
            onInput={(ev) => setPhone((ev.target as HTMLInputElement).value.trim())}
            {...input("phone")}
          />
        </label>
      </div>
      {bad("prefix", "prefix")
        ? <p className="form-error" role="alert">{problemText("prefix")}</p>
        : null}
      {bad("phone", "phone")
        ? <p className="form-error" role="alert">{problemText("phone")}</p>
        : null}
      {pinStep
        ? (
          <>
            <p className="muted">{t("secure.pinSent")}</p>
            <label>
              <span>{t("secure.pin")}</span>
              <input
                ref={pinRef}
                className="pin-input"
                type="text"
                inputMode="numeric"
                autoComplete="one-time-code"
                pattern="[0-9]*"
                maxLength={SECURE_PIN_LENGTH}
                value={pin}
                aria-invalid={!!pinMessage}
                onInput={(ev) => {
                  setPin((ev.target as HTMLInputElement).value.replace(/\D/g, ""));
                  if (pinMessage) setPinMessage(null);
                }}
              />
            </label>
          </>
        )
        : null}
      {pinMessage ? <p className="form-error" role="alert">{pinMessage}</p> : null}
      <FooterSubmit form="form-secure" disabled={!canSave}>
        {t("secure.save")}
      </FooterSubmit>
    </form>
  );
}
