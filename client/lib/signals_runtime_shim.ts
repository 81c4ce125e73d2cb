/**
 * Stand-in for `@preact/signals-react/runtime` in the preact flavour (build.ts aliases it
 * here). With `@preact/signals` every preact component already tracks the signals it reads,
 * so `useSignals()` has nothing to do; the hooks are the preact ones.
 */
export { useComputed, useModel, useSignal, useSignalEffect } from "@preact/signals";

/** What `useSignals()` returns in signals-react: a store the caller may finish or dispose. */
export interface EffectStore {
  f(): void;
}

const store: EffectStore = { f() {} };
const dispose = (Symbol as { dispose?: symbol }).dispose;
if (typeof dispose === "symbol") {
  Object.defineProperty(store, dispose, { value: () => {} });
}

/** No-op: preact's signals integration subscribes components without it. */
export function useSignals(
  _usage?: number,
  _componentName?: string,
): EffectStore {
  return store;
}

/** No-op counterpart of the signals-react cleanup used by its Babel transform. */
export function ensureFinalCleanup(): void {}

/** Identity: preact renders signals in JSX natively. */
export function wrapJsx<T>(jsx: T): T {
  return jsx;
}
