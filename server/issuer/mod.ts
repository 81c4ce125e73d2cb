/**
 * The card issuer the app uses (spec §3 Card), chosen by configuration. Only "simulator" exists:
 * a real issuer's adapter (Stripe Issuing, Lithic, Marqeta) would be another kind here, and the
 * app, which only sees `Issuer`, would not change.
 */
import type { Issuer } from "./issuer.ts";
import { IssuerSimulator, type SimulatorDeps } from "./simulator.ts";

export type IssuerKind = "simulator";

export type {
  Brand,
  CardDetails,
  CardKind,
  CardStatus,
  CreateCardParams,
  FundingLine,
  IssuedCard,
  IssuedLine,
  Issuer,
  RevealSession,
} from "./issuer.ts";
export { isIssuerError, IssuerError, type IssuerErrorCode } from "./errors.ts";
export type {
  Authorization,
  AuthorizationStatus,
  AuthorizeParams,
  CaptureParams,
  DeclineCode,
  LifecycleEvent,
  Merchant,
  RefundParams,
  ReverseParams,
} from "./authorization.ts";
export { DECLINE_REASONS } from "./authorization.ts";
export {
  convert,
  DEFAULT_RATES,
  exponentOf,
  formatMinor,
  parseMinor,
  type RateTable,
  termsFor,
} from "./fx.ts";
export { type IssuerKeySource, loadIssuerKey, newIssuerKeyText } from "./key.ts";
export type { SimulatorDeps } from "./simulator.ts";

/** The issuer of `kind`; no side effects (the simulator writes KV only when called). */
export function createIssuer(kind: IssuerKind, deps: SimulatorDeps): Issuer {
  switch (kind) {
    case "simulator":
      return new IssuerSimulator(deps);
    default:
      throw new Error(`Unknown issuer kind: ${kind satisfies never}`);
  }
}
