/**
 * Stands in for Deno's tests/unit/test_util.ts beside the vendored kv_test.ts: the six
 * assertions it imports, with @std/assert's meaning (JSR, where @std/assert lives, is not
 * reachable here: engineering.md §3). Deep equality is node's strict deep equality (same
 * prototypes, typed arrays element by element, Dates by time), as @std/assert's `equal` is.
 */
import { isDeepStrictEqual } from "node:util";

export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

const show = (v: unknown) => Deno.inspect(v, { depth: 10, colors: false });

export function assert(expr: unknown, msg = ""): asserts expr {
  if (!expr) throw new AssertionError(msg || "Expected expression to be truthy");
}

export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}Values are not equal:\n  actual:   ${show(actual)}\n` +
        `  expected: ${show(expected)}`,
    );
  }
}

export function assertNotEquals<T>(actual: T, expected: T, msg?: string): void {
  if (isDeepStrictEqual(actual, expected)) {
    throw new AssertionError(
      msg ?? `Expected actual: ${show(actual)} not to be: ${show(expected)}`,
    );
  }
}

// deno-lint-ignore no-explicit-any
type ErrorClass = abstract new (...args: any[]) => Error;

function check(e: unknown, cls?: ErrorClass | string, includes?: string, msg?: string): Error {
  if (typeof cls === "string") return e as Error; // (fn, msg) form: any error will do
  if (cls && !(e instanceof cls)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}Expected error to be instance of "${cls.name}", but was ` +
        `"${(e as Error)?.constructor?.name}": ${show(e)}`,
    );
  }
  if (includes && !String((e as Error)?.message).includes(includes)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}Expected error message to include "${includes}", but got ` +
        `"${(e as Error)?.message}"`,
    );
  }
  return e as Error;
}

export function assertThrows(
  fn: () => unknown,
  cls?: ErrorClass | string,
  includes?: string,
  msg?: string,
): Error {
  try {
    fn();
  } catch (e) {
    return check(e, cls, includes, msg);
  }
  throw new AssertionError(`${msg ? msg + ": " : ""}Expected function to throw`);
}

export async function assertRejects(
  fn: () => PromiseLike<unknown>,
  cls?: ErrorClass | string,
  includes?: string,
  msg?: string,
): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return check(e, cls, includes, msg);
  }
  throw new AssertionError(`${msg ? msg + ": " : ""}Expected function to reject`);
}
