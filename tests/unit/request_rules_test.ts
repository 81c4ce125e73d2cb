import assert from "node:assert/strict";
import {
  checkAmount,
  checkCreate,
  checkCreateFields,
  checkEdit,
  type CreateInput,
  MAX_PURPOSE,
  MAX_URL,
  normaliseVendorUrl,
  type TypeBounds,
  violationParams,
} from "../../client/shared/request_rules.ts";
import { formatMoney } from "../../client/shared/intl.ts";

const oneOff: TypeBounds = { minAmount: 20, maxAmount: 5000, isRecurring: false };
const recurring: TypeBounds = { minAmount: 20, maxAmount: 5000, isRecurring: true };

const input = (p: Partial<CreateInput> = {}): CreateInput => ({
  typeOid: "type-1",
  amount: 100,
  purpose: "Team lunch",
  hasBudget: false,
  url: "",
  ...p,
});

const edit = (p: Parameters<typeof checkEdit>[0] = {}) =>
  checkEdit({
    purpose: "Team lunch",
    costCenterOid: "cc-1",
    GLOid: "gl-1",
    projectOid: "pr-1",
    ...p,
  });

Deno.test("[request_rules] checkCreate accepts a complete one-off request", () => {
  assert.equal(checkCreate(input(), oneOff), null);
  assert.equal(checkCreate(input({ url: "shop.example.com" }), oneOff), null);
  assert.equal(checkCreate(input({ url: null }), oneOff), null);
  assert.equal(checkCreate(input({ url: undefined }), oneOff), null);
});

Deno.test("[request_rules] checkCreate accepts a recurring request with a budget", () => {
  assert.equal(checkCreate(input({ hasBudget: true, amount: 99.99 }), recurring), null);
});

Deno.test("[request_rules] checkCreate requires a type", () => {
  assert.deepEqual(checkCreate(input({ typeOid: "" }), oneOff), { key: "request.typeRequired" });
  assert.deepEqual(checkCreate(input({ typeOid: null }), oneOff), { key: "request.typeRequired" });
  assert.deepEqual(checkCreate(input({ typeOid: undefined }), oneOff), {
    key: "request.typeRequired",
  });
  assert.deepEqual(checkCreate(input(), null), { key: "request.typeRequired" });
});

Deno.test("[request_rules] checkCreate requires a budget for a recurring type", () => {
  assert.deepEqual(checkCreate(input({ hasBudget: false }), recurring), {
    key: "request.budgetRequired",
  });
});

Deno.test("[request_rules] checkCreate requires an amount", () => {
  for (const amount of [null, undefined, NaN]) {
    assert.deepEqual(checkCreate(input({ amount }), oneOff), { key: "request.amountRequired" });
  }
});

Deno.test("[request_rules] checkCreate refuses an amount outside the type's bounds", () => {
  const want = {
    key: "request.amountRange",
    params: { min: "20", max: "5000" },
    money: { min: 20, max: 5000 },
  };
  assert.deepEqual(checkCreate(input({ amount: 19.99 }), oneOff), want);
  assert.deepEqual(checkCreate(input({ amount: 5000.01 }), oneOff), want);
  assert.deepEqual(checkCreate(input({ amount: 1_000_000 }), oneOff), want);
});

Deno.test("[request_rules] checkCreate accepts amounts on the type's bounds", () => {
  assert.equal(checkCreate(input({ amount: 20 }), oneOff), null);
  assert.equal(checkCreate(input({ amount: 5000 }), oneOff), null);
});

Deno.test("[request_rules] amount range: the bounds as amounts, written as money where the text is made", () => {
  const v = checkAmount(1, { minAmount: 12.5, maxAmount: 10000, isRecurring: false })!;
  assert.deepEqual(v, {
    key: "request.amountRange",
    params: { min: "12.5", max: "10000" },
    money: { min: 12.5, max: 10000 },
  });
  assert.deepEqual(violationParams(v, (n) => formatMoney(n, "EUR", "en")), {
    min: "€12.50",
    max: "€10,000.00",
  });
  assert.deepEqual(violationParams(v, (n) => formatMoney(n, "EUR", "de")), {
    min: "12,50\u00a0€",
    max: "10.000,00\u00a0€",
  });
  // A violation without amounts keeps its parameters as they are.
  const plain = { key: "request.purposeTooLong" as const, params: { max: 500 } };
  assert.equal(violationParams(plain, () => "x"), plain.params);
});

Deno.test("[request_rules] checkCreate refuses zero, negative and three-decimal amounts", () => {
  for (const amount of [0, -1, -50, 100.001, 12.345, Infinity]) {
    assert.deepEqual(
      checkCreate(input({ amount }), oneOff),
      { key: "request.amountInvalid" },
      String(amount),
    );
  }
});

Deno.test("[request_rules] checkAmount refuses zero even when the type allows it", () => {
  const free: TypeBounds = { minAmount: 0, maxAmount: 100, isRecurring: false };
  assert.deepEqual(checkAmount(0, free), { key: "request.amountInvalid" });
  assert.equal(checkAmount(0.01, free), null);
});

Deno.test("[request_rules] checkCreate requires a purpose that is not only whitespace", () => {
  for (const purpose of ["", "   ", "\t\n ", null, undefined]) {
    assert.deepEqual(
      checkCreate(input({ purpose }), oneOff),
      { key: "request.purposeRequired" },
      JSON.stringify(purpose),
    );
  }
});

Deno.test("[request_rules] checkCreate refuses a purpose longer than MAX_PURPOSE", () => {
  assert.equal(MAX_PURPOSE, 500);
  assert.equal(checkCreate(input({ purpose: "a".repeat(MAX_PURPOSE) }), oneOff), null);
  assert.deepEqual(checkCreate(input({ purpose: "a".repeat(MAX_PURPOSE + 1) }), oneOff), {
    key: "request.purposeTooLong",
    params: { max: MAX_PURPOSE },
  });
});

Deno.test("[request_rules] checkCreate measures the purpose after trimming", () => {
  const padded = `  ${"a".repeat(MAX_PURPOSE)}  `;
  assert.equal(checkCreate(input({ purpose: padded }), oneOff), null);
});

Deno.test("[request_rules] checkCreate refuses an invalid vendor url", () => {
  for (const url of ["javascript:alert(1)", "data:text/html,x", "ftp://x.example", "not a url"]) {
    assert.deepEqual(
      checkCreate(input({ url }), oneOff),
      { key: "request.vendorUrlInvalid" },
      url,
    );
  }
});

Deno.test("[request_rules] checkCreate reports violations in the spec's order", () => {
  const bad: CreateInput = {
    typeOid: "t",
    amount: 1,
    purpose: " ",
    hasBudget: false,
    url: "javascript:alert(1)",
  };
  // Everything wrong: the type comes first.
  assert.deepEqual(checkCreate({ ...bad, typeOid: null, amount: null }, recurring), {
    key: "request.typeRequired",
  });
  // Then the budget of a recurring type, before the amount.
  assert.deepEqual(checkCreate({ ...bad, amount: null }, recurring), {
    key: "request.budgetRequired",
  });
  // Then the amount's presence.
  assert.deepEqual(checkCreate({ ...bad, amount: null }, oneOff), {
    key: "request.amountRequired",
  });
  // Then the amount's validity, before its range.
  assert.deepEqual(checkCreate({ ...bad, amount: -1 }, oneOff), { key: "request.amountInvalid" });
  // Then the range.
  assert.deepEqual(checkCreate(bad, oneOff), {
    key: "request.amountRange",
    params: { min: "20", max: "5000" },
    money: { min: 20, max: 5000 },
  });
  // Then the purpose.
  assert.deepEqual(checkCreate({ ...bad, amount: 100 }, oneOff), {
    key: "request.purposeRequired",
  });
  assert.deepEqual(checkCreate({ ...bad, amount: 100, purpose: "a".repeat(501) }, oneOff), {
    key: "request.purposeTooLong",
    params: { max: MAX_PURPOSE },
  });
  // Then the vendor url.
  assert.deepEqual(checkCreate({ ...bad, amount: 100, purpose: "ok" }, oneOff), {
    key: "request.vendorUrlInvalid",
  });
  // And nothing once that is fixed.
  assert.equal(checkCreate({ ...bad, amount: 100, purpose: "ok", url: "x.example" }, oneOff), null);
});

Deno.test("[request_rules] checkEdit accepts a purpose with all three codes", () => {
  assert.equal(edit(), null);
});

Deno.test("[request_rules] checkEdit requires a purpose that is not only whitespace", () => {
  for (const purpose of ["", "  ", null, undefined]) {
    assert.deepEqual(
      edit({ purpose }),
      { key: "request.purposeRequired" },
      JSON.stringify(purpose),
    );
  }
});

Deno.test("[request_rules] checkEdit refuses a purpose longer than MAX_PURPOSE", () => {
  assert.equal(edit({ purpose: "b".repeat(MAX_PURPOSE) }), null);
  assert.deepEqual(edit({ purpose: "b".repeat(MAX_PURPOSE + 1) }), {
    key: "request.purposeTooLong",
    params: { max: MAX_PURPOSE },
  });
});

Deno.test("[request_rules] checkEdit requires cost center, GL and project", () => {
  const want = { key: "request.codesRequired" };
  for (const missing of [null, undefined, ""]) {
    assert.deepEqual(edit({ costCenterOid: missing }), want, `costCenter ${missing}`);
    assert.deepEqual(edit({ GLOid: missing }), want, `GL ${missing}`);
    assert.deepEqual(edit({ projectOid: missing }), want, `project ${missing}`);
  }
  assert.deepEqual(checkEdit({ purpose: "x" }), want);
});

Deno.test("[request_rules] checkEdit reports the purpose before the codes", () => {
  assert.deepEqual(checkEdit({ purpose: " " }), { key: "request.purposeRequired" });
});

Deno.test("[request_rules] normaliseVendorUrl adds http:// when there is no scheme", () => {
  assert.equal(normaliseVendorUrl("shop.example.com"), "http://shop.example.com");
  assert.equal(normaliseVendorUrl("shop.example.com/p?q=1"), "http://shop.example.com/p?q=1");
  assert.equal(normaliseVendorUrl("www.example.co.uk"), "http://www.example.co.uk");
});

Deno.test("[request_rules] normaliseVendorUrl keeps http and https urls as they are", () => {
  assert.equal(normaliseVendorUrl("https://x.example"), "https://x.example");
  assert.equal(normaliseVendorUrl("http://x.example/p?q=1"), "http://x.example/p?q=1");
  assert.equal(
    normaliseVendorUrl("https://shop.example.com/item#top"),
    "https://shop.example.com/item#top",
  );
});

Deno.test("[request_rules] normaliseVendorUrl treats host:port as a host, not a scheme", () => {
  assert.equal(normaliseVendorUrl("localhost:8080/x"), "http://localhost:8080/x");
  assert.equal(normaliseVendorUrl("localhost:8080"), "http://localhost:8080");
  assert.equal(normaliseVendorUrl("shop.example.com:8443/a"), "http://shop.example.com:8443/a");
});

Deno.test("[request_rules] normaliseVendorUrl trims surrounding whitespace", () => {
  assert.equal(normaliseVendorUrl("  shop.example.com  "), "http://shop.example.com");
});

Deno.test("[request_rules] normaliseVendorUrl refuses scripts and data", () => {
  for (
    const url of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      " javascript:alert(1)",
      "javascript:1",
      "data:text/html,x",
      "vbscript:msgbox(1)",
    ]
  ) {
    assert.equal(normaliseVendorUrl(url), null, url);
  }
});

Deno.test("[request_rules] normaliseVendorUrl refuses other schemes", () => {
  for (const url of ["ftp://x.example", "mailto:a@x.example", "file:///etc/passwd"]) {
    assert.equal(normaliseVendorUrl(url), null, url);
  }
});

Deno.test("[request_rules] normaliseVendorUrl refuses what is not a web address", () => {
  for (const url of ["not a url", "example", "http://example", "http://", "a b.example"]) {
    assert.equal(normaliseVendorUrl(url), null, url);
  }
  assert.equal(normaliseVendorUrl("x." + "a".repeat(MAX_URL)), null);
});

Deno.test("[request_rules] normaliseVendorUrl gives '' for empty input", () => {
  assert.equal(normaliseVendorUrl(""), "");
  assert.equal(normaliseVendorUrl("   "), "");
});

Deno.test("[request_rules] checkCreateFields gives every violation at once, each on its field", () => {
  assert.deepEqual(checkCreateFields(input(), oneOff), {});
  assert.deepEqual(
    checkCreateFields(
      input({ typeOid: null, amount: null, purpose: " ", url: "javascript:x" }),
      null,
    ),
    {
      type: { key: "request.typeRequired" },
      amount: { key: "request.amountRequired" },
      purpose: { key: "request.purposeRequired" },
      url: { key: "request.vendorUrlInvalid" },
    },
  );
  assert.deepEqual(checkCreateFields(input({ amount: 10, purpose: "" }), oneOff), {
    amount: {
      key: "request.amountRange",
      params: { min: "20", max: "5000" },
      money: { min: 20, max: 5000 },
    },
    purpose: { key: "request.purposeRequired" },
  });
  assert.deepEqual(checkCreateFields(input({ hasBudget: false }), recurring), {
    amount: { key: "request.budgetRequired" },
  });
  // The first of them, in the form's order, is what checkCreate (the server's) says.
  for (
    const [i, type] of [
      [input({ amount: -1, purpose: "" }), oneOff],
      [input({ typeOid: null, amount: 5 }), null],
      [input({ purpose: "x".repeat(501) }), oneOff],
    ] as const
  ) {
    const all = Object.values(checkCreateFields(i, type));
    assert.deepEqual(all[0] ?? null, checkCreate(i, type));
  }
});
