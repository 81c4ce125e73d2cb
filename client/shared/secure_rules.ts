/**
 * 3-D Secure settings rules (spec §5 Secure panel, §9), shared by the panel and the server.
 * Save is disabled while password, prefix or phone is empty or invalid; the password
 * rule applies only when it was changed ("unrestricted when equal to the original").
 */
export const PASSWORD_MIN = 4;
export const PASSWORD_MAX = 30;
/** The "limited set of symbols" a new 3-D Secure password may use besides letters and digits. */
export const PASSWORD_SYMBOLS = "!#$%&*+-.=?@_";
export const PHONE_MIN = 6;
export const PHONE_MAX = 15;
/** spec §9: the secure PIN has 4 digits. */
export const SECURE_PIN_LENGTH = 4;
/**
 * What the settings read sends in place of a stored password. Its dots are outside the
 * allowed set, so no new password can equal it: sent back, it means "unchanged".
 */
export const PASSWORD_PLACEHOLDER = "••••••••";

const PASSWORD = new RegExp(
  `^[A-Za-z0-9${PASSWORD_SYMBOLS.replace(/[-\\\]^]/g, "\\$&")}]{${PASSWORD_MIN},${PASSWORD_MAX}}$`,
);

export type SecureProblem = "password" | "prefix" | "phone";

export interface SecureInput {
  password: string;
  countryPrefix: string;
  phoneNumber: string;
}

/** Why these settings cannot be saved, field by field (empty when they can). */
export function checkSecure(s: SecureInput, original: string | null): SecureProblem[] {
  const out: SecureProblem[] = [];
  const unchanged = original !== null && s.password === original;
  if (!s.password || (!unchanged && !PASSWORD.test(s.password))) out.push("password");
  if (!/^\+?[0-9]{1,4}$/.test(s.countryPrefix)) out.push("prefix");
  if (!new RegExp(`^[0-9]{${PHONE_MIN},${PHONE_MAX}}$`).test(s.phoneNumber)) out.push("phone");
  return out;
}

/** spec §5: the PIN field, exactly 4 digits. */
export function validSecurePin(pin: string): boolean {
  return new RegExp(`^[0-9]{${SECURE_PIN_LENGTH}}$`).test(pin);
}

/** spec §9: the reveal key, 16 random alphanumeric characters. */
export const REVEAL_KEY = /^[A-Za-z0-9]{16}$/;
