/**
 * Pull-to-refresh rules (spec §2, §4, §9): the indicator follows half the finger's travel
 * (factor 0.5); at the refresh height a full refresh runs; the indicator resets 1500 ms
 * later. States: idle → pulling → refreshing → reset → idle. Pure, so unit-tested.
 */

/** spec §9: pull factor. */
export const PULL_FACTOR = 0.5;
/** spec §9: reset after 1500 ms. */
export const RESET_MS = 1500;
/** Indicator travel (px, after the factor) at which the refresh runs: 128 px of finger. */
export const REFRESH_HEIGHT = 64;
/** The indicator stops following the finger here. */
export const MAX_PULL = 96;
/** How long the indicator takes to slide back (the `reset` state), ms. */
export const SLIDE_BACK_MS = 200;

/** spec §4 pull-to-refresh states. */
export type PullState = "idle" | "pulling" | "refreshing" | "reset";

/** How far the indicator shows for a finger `dy` px below where it touched. */
export function pullDistance(dy: number): number {
  return Math.min(MAX_PULL, Math.max(0, dy * PULL_FACTOR));
}

/**
 * The state after the finger moved to `dy` px below its start. `pulling` until the
 * distance reaches the refresh height, then `refreshing` (the caller runs the refresh once,
 * on that transition); pushing back above the start ends the pull.
 */
export function afterMove(state: PullState, dy: number): PullState {
  if (state === "refreshing" || state === "reset") return state;
  if (dy <= 0) return "idle";
  return pullDistance(dy) >= REFRESH_HEIGHT ? "refreshing" : "pulling";
}

/** Letting go short of the refresh height ends the pull; a refresh runs on to its reset. */
export function afterRelease(state: PullState): PullState {
  return state === "pulling" ? "idle" : state;
}
