import type { Dictionary } from "./en.ts";
import { en } from "./en.ts";

/** French. Placeholder until the full translation lands: falls back to English. */
export const fr: Dictionary = { ...en };
