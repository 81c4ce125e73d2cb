/**
 * Strength rules for the activation PIN (spec §5, §9: 6 digits on activation).
 *
 * The rules refuse the PINs people pick first and guess first, so that the
 * handful of guesses an attacker gets before the device is wiped (spec §4:
 * five wrong PINs wipe local data) are less likely to hit. They are pure and
 * synchronous so the PIN pad can run them on every key press.
 *
 * Precisely, for a PIN of digits `d0 … d5`:
 *
 * - **repetition** when
 *   1. any digit occurs 4 or more times in a row ("more than 3 times in a
 *      row"): `111123`, `901111`, `555555`. Three in a row is allowed, so
 *      `111222` and `000123` are accepted by this rule;
 *   2. the whole PIN is one 2-digit block repeated: `121212`, `454545`,
 *      `000000`;
 *   3. the whole PIN is one 3-digit block repeated: `123123`, `112112`,
 *      `907907`.
 *   A repeated block only counts when it makes up the whole PIN; a partial
 *   echo such as `121256` or `123412` is accepted (refusing every PIN that
 *   contains a repeated pair would remove far more PINs than it protects).
 * - **sequence** when every digit is the previous one plus 1 (ascending) or
 *   every digit is the previous one minus 1 (descending), counted modulo 10 so
 *   that the wrap from 9 to 0 continues the run: `123456`, `012345`,
 *   `890123`, `901234` ascend; `987654`, `543210`, `109876`, `210987` descend.
 *   Steps of other sizes (`135790`, `246802`) are not a "direct" sequence and
 *   are accepted.
 *
 * The two problems never overlap (a ±1 step can neither stay on one digit nor
 * come back to it within 3 steps); repetition is still checked first, the
 * order of spec §5, should a rule ever change.
 *
 * The rules are written for any length so partial or differently sized PINs
 * are judged consistently, but only the complete 6-digit PIN is meant to be
 * judged: check {@link isCompletePin} first.
 */

/** Why a PIN was refused; the key into {@link PIN_MESSAGES}. */
export type PinProblem = "repetition" | "sequence";

/**
 * The spec §5 messages, used as English text keys for translation. The spec's
 * 'secuity' typo is mended here: the text is shown to users, and the
 * translation tables are keyed by this corrected text.
 */
export const PIN_MESSAGES: Readonly<Record<PinProblem, string>> = Object.freeze(
  {
    repetition: "For security reasons, try using less repetition in your Pin",
    sequence:
      "For security reasons, do not use a direct sequence of ascending / descending numbers",
  },
);

/** Longest run of one digit that is still allowed (spec §5: "more than 3 times"). */
export const MAX_SAME_DIGIT_RUN = 3;

const DIGITS_ONLY = /^[0-9]*$/;

/**
 * True when `pin` is exactly `length` ASCII digits. The PIN pad only offers
 * digits, but a value can also arrive from paste or autofill, so gate the save
 * button (spec §4: shown at 6 digits) and {@link checkPin} on this.
 */
export function isCompletePin(pin: string, length: number): boolean {
  return Number.isInteger(length) && length > 0 && pin.length === length &&
    DIGITS_ONLY.test(pin);
}

/**
 * Judges a PIN against the spec §5 strength rules; `null` means acceptable.
 * Throws a RangeError on characters other than ASCII digits: that is a caller
 * bug (validate with {@link isCompletePin}), not a weak PIN.
 */
export function checkPin(pin: string): PinProblem | null {
  if (!DIGITS_ONLY.test(pin)) {
    throw new RangeError("checkPin expects ASCII digits only");
  }
  if (hasLongRun(pin) || isRepeatedBlock(pin, 2) || isRepeatedBlock(pin, 3)) {
    return "repetition"; // spec §5: repeats more than 3 times / pattern repeats
  }
  if (isStraightSequence(pin, 1) || isStraightSequence(pin, -1)) {
    return "sequence"; // spec §5: straight ascending or descending sequence
  }
  return null;
}

/** spec §5: "any digit repeats more than 3 times in a row". */
function hasLongRun(pin: string): boolean {
  let run = 1;
  for (let i = 1; i < pin.length; i++) {
    run = pin[i] === pin[i - 1] ? run + 1 : 1;
    if (run > MAX_SAME_DIGIT_RUN) return true;
  }
  return false;
}

/**
 * spec §5: "a 2-digit or 3-digit pattern repeats". True when the whole PIN is
 * the first `block` digits repeated at least twice (so 6 digits = a 2-digit
 * block three times, or a 3-digit block twice).
 */
function isRepeatedBlock(pin: string, block: number): boolean {
  if (pin.length < block * 2 || pin.length % block !== 0) return false;
  for (let i = block; i < pin.length; i++) {
    if (pin[i] !== pin[i - block]) return false;
  }
  return true;
}

/**
 * spec §5: "a straight ascending or descending sequence". Each step is `step`
 * modulo 10, so 9→0 continues an ascending run and 0→9 a descending one. Needs
 * at least 3 digits: two digits are always "a sequence" of something.
 */
function isStraightSequence(pin: string, step: 1 | -1): boolean {
  if (pin.length < 3) return false;
  for (let i = 1; i < pin.length; i++) {
    const expected = (Number(pin[i - 1]) + step + 10) % 10;
    if (Number(pin[i]) !== expected) return false;
  }
  return true;
}
