import assert from "node:assert/strict";
import { FILENAME_MAX, shortName, sizeText } from "../../client/lib/file_display.ts";

Deno.test("[files] names longer than 22 characters are cut with an ellipsis (spec §5, §9)", () => {
  assert.equal(FILENAME_MAX, 22);
  assert.equal(shortName("receipt.pdf"), "receipt.pdf");
  assert.equal(shortName("1234567890123456789012"), "1234567890123456789012");
  assert.equal(shortName("12345678901234567890123"), "1234567890123456789012…");
  assert.equal(shortName("a-very-long-receipt-name-from-the-shop.pdf"), "a-very-long-receipt-na…");
  // Characters, not UTF-16 units: an emoji is not split in half.
  assert.equal(shortName("😀".repeat(23)), `${"😀".repeat(22)}…`);
});

Deno.test("[files] sizes: MB above 1 MB, otherwise kB (spec §5)", () => {
  assert.equal(sizeText(0), "0 kB");
  assert.equal(sizeText(100), "1 kB");
  assert.equal(sizeText(312 * 1024), "312 kB");
  assert.equal(sizeText(1024 * 1024), "1,024 kB");
  assert.equal(sizeText(1024 * 1024 + 1), "1 MB");
  assert.equal(sizeText(2.44 * 1024 * 1024), "2.4 MB");
  assert.equal(sizeText(10 * 1024 * 1024), "10 MB");
  assert.equal(sizeText(2.5 * 1024 * 1024, "fr"), "2,5 MB");
});
