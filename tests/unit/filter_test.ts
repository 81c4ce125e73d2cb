import assert from "node:assert/strict";
import { chosenNames } from "../../client/screens/Filter/FilterPanel.tsx";

const OPTIONS = [
  { value: "type-travel", label: "Travel" },
  { value: "type-it", label: "IT equipment" },
  { value: "type-meal", label: "Meals" },
  { value: "type-train", label: "Training" },
];

Deno.test("[filter] a filter row shows the names chosen, not '1 selected'", () => {
  assert.equal(chosenNames(OPTIONS, []), "");
  assert.equal(chosenNames(OPTIONS, ["type-travel"]), "Travel");
  assert.equal(chosenNames(OPTIONS, ["type-travel", "type-it"]), "Travel, IT equipment");
  // Beyond two, the first two and how many more: short enough for a 360 px row.
  assert.equal(
    chosenNames(OPTIONS, ["type-travel", "type-it", "type-meal", "type-train"]),
    "Travel, IT equipment +2",
  );
  // A value no longer listed still shows as itself, never as a count.
  assert.equal(chosenNames(OPTIONS, ["cc-gone"]), "cc-gone");
});
