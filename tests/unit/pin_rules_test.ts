import assert from "node:assert/strict";
import {
  checkPin,
  isCompletePin,
  PIN_MESSAGES,
  type PinProblem,
} from "../../client/shared/pin_rules.ts";

function expectAll(pins: string[], want: PinProblem | null) {
  for (const pin of pins) {
    assert.equal(checkPin(pin), want, `checkPin("${pin}")`);
  }
}

Deno.test("[pin_rules] accepts PINs without runs, block repeats or sequences", () => {
  expectAll([
    "135790",
    "246813",
    "109283",
    "111222", // two runs of 3: allowed, only 4+ is refused
    "000123", // run of 3 then an ascending tail that is not the whole PIN
    "112233",
    "121256", // partial 2-digit echo: not the whole PIN
    "123412", // partial echo
    "123457", // almost a sequence
    "135791", // step 2 is not a direct sequence
    "246802",
    "864209",
    "908172",
    "314159",
    "271828",
    "111011",
    "122211",
    "123321", // palindrome is not a block repeat
    "012340",
    "987650",
    "121213",
    "123124",
  ], null);
});

Deno.test("[pin_rules] refuses 4 or more identical digits in a row", () => {
  expectAll([
    "111123",
    "901111",
    "211112",
    "555556",
    "000007",
    "922229",
    "333333",
    "000000",
    "999999",
  ], "repetition");
});

Deno.test("[pin_rules] refuses a whole-PIN 2-digit block repeated", () => {
  expectAll(["121212", "454545", "909090", "010101", "989898"], "repetition");
});

Deno.test("[pin_rules] refuses a whole-PIN 3-digit block repeated", () => {
  expectAll([
    "123123",
    "112112",
    "907907",
    "000000",
    "456456",
    "998998",
    "100100",
    "321321",
  ], "repetition");
});

Deno.test("[pin_rules] refuses straight ascending sequences, wrapping 9 to 0", () => {
  expectAll([
    "123456",
    "234567",
    "345678",
    "456789",
    "012345",
    "567890",
    "678901",
    "789012",
    "890123",
    "901234",
  ], "sequence");
});

Deno.test("[pin_rules] refuses straight descending sequences, wrapping 0 to 9", () => {
  expectAll([
    "987654",
    "876543",
    "654321",
    "543210",
    "432109",
    "321098",
    "210987",
    "109876",
    "098765",
  ], "sequence");
});

Deno.test("[pin_rules] agrees with a regex oracle on all 1,000,000 PINs", () => {
  // Independent statement of the documented rules, as plain as possible.
  const ascending = "01234567890123456789";
  const descending = "98765432109876543210";
  const oracle = (pin: string): PinProblem | null => {
    if (
      /(\d)\1{3}/.test(pin) || /^(\d\d)\1\1$/.test(pin) ||
      /^(\d{3})\1$/.test(pin)
    ) {
      return "repetition";
    }
    if (ascending.includes(pin) || descending.includes(pin)) return "sequence";
    return null;
  };
  const counts = { repetition: 0, sequence: 0, ok: 0 };
  for (let n = 0; n < 1_000_000; n++) {
    const pin = String(n).padStart(6, "0");
    const got = checkPin(pin);
    if (got !== oracle(pin)) assert.fail(`${pin}: ${got} vs ${oracle(pin)}`);
    counts[got ?? "ok"]++;
  }
  // 20 sequences (10 ascending + 10 descending, wrap-around included).
  assert.equal(counts.sequence, 20);
  // Runs of 4+: 10 (six same) + 180 (run of exactly 5) + 2610 (exactly 4)
  // = 2800; "ababab" 100 - 10 already runs = 90; "abcabc" 1000 - 10 = 990.
  assert.equal(counts.repetition, 2800 + 90 + 990);
  assert.equal(counts.ok, 1_000_000 - 3880 - 20);
});

Deno.test("[pin_rules] short inputs are judged without false sequences", () => {
  assert.equal(checkPin(""), null);
  assert.equal(checkPin("1"), null);
  assert.equal(checkPin("12"), null);
  assert.equal(checkPin("123"), "sequence");
  assert.equal(checkPin("111"), null);
});

Deno.test("[pin_rules] checkPin throws on non-digits instead of judging them", () => {
  for (const bad of ["12345a", "12 456", "١٢٣٤٥٦", "-12345", "1.2345"]) {
    assert.throws(() => checkPin(bad), RangeError, bad);
  }
});

Deno.test("[pin_rules] isCompletePin wants exactly `length` ASCII digits", () => {
  assert.equal(isCompletePin("135790", 6), true);
  assert.equal(isCompletePin("12345", 5), true);
  assert.equal(isCompletePin("12345", 6), false);
  assert.equal(isCompletePin("1234567", 6), false);
  assert.equal(isCompletePin("12345a", 6), false);
  assert.equal(isCompletePin("12 345", 6), false);
  assert.equal(isCompletePin("١٢٣٤٥٦", 6), false); // Arabic-Indic digits
  assert.equal(isCompletePin("１２３４５６", 6), false); // full-width digits
  assert.equal(isCompletePin("", 0), false);
  assert.equal(isCompletePin("123456", 6.5), false);
  assert.equal(isCompletePin("123456\n", 6), false);
});

Deno.test("[pin_rules] messages are the spec §5 texts with the typo mended", () => {
  assert.deepEqual(PIN_MESSAGES, {
    repetition: "For security reasons, try using less repetition in your Pin",
    sequence:
      "For security reasons, do not use a direct sequence of ascending / descending numbers",
  });
  assert.ok(Object.isFrozen(PIN_MESSAGES));
});
