import assert from "node:assert/strict";
import { keepBounded } from "../../server/store/bounded.ts";

Deno.test("[store] what a process remembers stays within its bound: the oldest goes first, a kept key is not replaced", () => {
  const map = new Map<string, number>();
  for (let i = 0; i < 105; i++) keepBounded(map, `k${i}`, i, 100);
  assert.equal(map.size, 100);
  assert.ok(!map.has("k0") && !map.has("k4"), "the five oldest are gone");
  assert.equal(map.get("k5"), 5);
  keepBounded(map, "k5", 500, 100);
  assert.equal(map.get("k5"), 5, "a kept key keeps its value");
  assert.equal(map.size, 100);
});
