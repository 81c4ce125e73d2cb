/**
 * Passkey unlock's part of the main screen's chunk (spec §4, extended), re-exported by
 * MainArea.tsx like push_main.ts: the unlock screen (only when a passkey wrapper is stored)
 * and Options reach it through the same `import()` as the main screen, which is fetched while
 * the PIN is typed anyway. A chunk of its own would split the first load's shared chunks
 * (esbuild splits by the set of entries reaching each module) and grow it.
 */
export { default as PasskeyLine } from "../screens/Unlock/PasskeyLine.tsx";
export { AfterUnlockSwitches } from "../screens/Options/AfterUnlockSwitches.tsx";
