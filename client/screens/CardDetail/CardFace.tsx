import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../../i18n/index.ts";
import type { CardState } from "../../lib/cards.ts";

/**
 * The card network's word-mark in a box (our own drawing, spec §2: visa or mastercard logo),
 * as inline SVG: no request, no image file.
 */
export function BrandLogo(props: { type: "visa" | "mc" }) {
  const visa = props.type === "visa";
  return (
    <svg
      className="brand-logo"
      viewBox={visa ? "0 0 64 24" : "0 0 92 24"}
      width={visa ? 64 : 92}
      height="24"
      role="img"
      aria-label={visa ? "Visa" : "Mastercard"}
    >
      <rect width={visa ? 64 : 92} height="24" rx="4" fill="#fff" />
      <text
        x={visa ? 32 : 46}
        y={visa ? 18 : 16.5}
        text-anchor="middle"
        font-family="Arial, Helvetica, sans-serif"
        font-size={visa ? 17 : 13}
        font-weight="800"
        font-style={visa ? "italic" : "normal"}
        letter-spacing={visa ? 1 : 0}
        fill={visa ? "#1a1f71" : "#231f20"}
      >
        {visa ? "VISA" : "mastercard"}
      </text>
    </svg>
  );
}

/**
 * spec §2 card face: holder in uppercase, brand logo, the number (masked unless revealed),
 * valid-thru MM/YY and the CVC slot (when the card is active).
 */
export function CardFace(props: {
  type: "visa" | "mc";
  holder: string;
  number: string;
  validThru: string;
  cvc: string | null;
  state: CardState;
  revealed: boolean;
}) {
  useSignals();
  return (
    <section
      className={`card-face brand-${props.type} card-${props.state.toLowerCase()}${
        props.revealed ? " revealed" : ""
      }`}
      aria-label={t("card.face")}
    >
      <div className="card-face-top">
        <span className="card-chip" aria-hidden="true" />
        <BrandLogo type={props.type} />
      </div>
      <p className="card-number">
        <span className="sr-only">{t("card.number")}</span>
        <span>{props.number}</span>
      </p>
      <div className="card-face-bottom">
        <p className="card-holder">
          <small>{t("card.holder")}</small>
          <span>{props.holder.toUpperCase()}</span>
        </p>
        <p className="card-expiry">
          <small>{t("card.validThru")}</small>
          <span>{props.validThru}</span>
        </p>
        {props.cvc !== null
          ? (
            <p className="card-cvc-slot">
              <small>{t("card.cvc")}</small>
              <span className="card-cvc">{props.cvc}</span>
            </p>
          )
          : null}
      </div>
    </section>
  );
}
