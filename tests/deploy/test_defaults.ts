/**
 * Preload of the Deploy run of `deno task test` only (not of the processes it starts).
 *
 * Deno 2.5.0's test sanitizers count timers and child processes that Node-compatible code
 * (nodemailer, fake-indexeddb, the guard's sweeper) leaves to the event loop differently from
 * the pinned Deno, which runs the same tests with its sanitizers on. This run checks behaviour
 * on the Deploy runtime, so its tests run with the op and resource sanitizers off.
 *
 * These few stay on the pinned runtime only (ignored here), because the test's own fixture, not
 * QCard, needs what 2.5.0 lacks:
 * - the TLS tests' SMTP server upgrades a socket on the server side with node:tls
 *   (`tls.TLSSocket` with `isServer`, `tls.Server.listen`), which 2.5.0's Node layer does not
 *   do (QCard's own SMTP client is exercised on 2.5.0 by the deploy rehearsal, in clear);
 * - the relay's compression test reads the edge's `content-encoding` through 2.5.0's fetch,
 *   which drops it after decoding (the bytes that crossed are checked on the pinned runtime).
 */
export const PINNED_ONLY = [
  "[smtp] STARTTLS against a self-signed CA",
  "[smtp] implicit TLS (SMTP_SECURE=true)",
  "[mail] STARTTLS against a self-signed certificate",
  "[relay] a large answer crosses compressed",
];
type TestArgs = Parameters<typeof Deno.test>;
const test = Deno.test.bind(Deno);
const relaxed = (def: Deno.TestDefinition): Deno.TestDefinition => ({
  ...def,
  sanitizeOps: false,
  sanitizeResources: false,
  ignore: def.ignore || PINNED_ONLY.some((p) => def.name.startsWith(p)),
});
(Deno as { test: typeof Deno.test }).test = ((...args: TestArgs) => {
  const [a, b, c] = args as unknown[];
  if (typeof a === "string" && typeof b === "function") {
    return test(relaxed({ name: a, fn: b as Deno.TestDefinition["fn"] }));
  }
  if (typeof a === "string" && typeof b === "object" && typeof c === "function") {
    return test(relaxed({ ...(b as object), name: a, fn: c as Deno.TestDefinition["fn"] }));
  }
  if (typeof a === "object" && a !== null) return test(relaxed(a as Deno.TestDefinition));
  return test(...args);
}) as typeof Deno.test;
