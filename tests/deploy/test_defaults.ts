/**
 * Preload of the Deploy run of `deno task test` only (not of the processes it starts): Deno
 * 2.5.0's test sanitizers count timers and child processes that Node-compatible code (nodemailer,
 * fake-indexeddb, the guard's sweeper) leaves to the event loop differently from the pinned
 * Deno, which runs the same tests with its sanitizers on. This run checks behaviour on the Deploy
 * runtime, so its tests run with the op and resource sanitizers off.
 */
type TestArgs = Parameters<typeof Deno.test>;
const test = Deno.test.bind(Deno);
const relaxed = { sanitizeOps: false, sanitizeResources: false };
Deno.test = ((...args: TestArgs) => {
  const [a, b, c] = args as unknown[];
  if (typeof a === "string" && typeof b === "function") {
    return test({ name: a, fn: b as Deno.TestDefinition["fn"], ...relaxed });
  }
  if (typeof a === "string" && typeof b === "object" && typeof c === "function") {
    return test({ ...(b as object), name: a, fn: c as Deno.TestDefinition["fn"], ...relaxed });
  }
  if (typeof a === "object" && a !== null) {
    return test({ ...relaxed, ...(a as Deno.TestDefinition) });
  }
  return test(...args);
}) as typeof Deno.test;
