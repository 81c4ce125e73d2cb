import { signal } from "@preact/signals-react";

/**
 * The main screen's chunk (client/app/MainArea.tsx): everything shown after unlock, and the
 * unlocked halves of push and passkeys. Fetched from the PIN pad on, while the PIN is typed
 * (client/main.tsx), never for the activation screen.
 */
export type MainChunk = typeof import("./MainArea.tsx");

/** The chunk once it is in, else null: what needs it renders once it is there. */
export const mainChunk = signal<MainChunk | null>(null);

/** Fetches the chunk (once: import() keeps it). */
export const loadMainArea = (): Promise<MainChunk> =>
  import("./MainArea.tsx").then((m) => (mainChunk.value = m));
