/**
 * Stands in for @std/testing/types (JSR, not reachable here) for the vendored kv_test.ts:
 * compile-time type assertions, as upstream defines them.
 */
export type IsExact<T, U> = (<G>() => G extends T ? 1 : 2) extends (<G>() => G extends U ? 1 : 2)
  ? true
  : false;

/** Asserts at compile time that `T` is `true` (upstream: `assertType<IsExact<A, B>>(true)`). */
export function assertType<T extends true | false>(_expectTrue: T): void {}
