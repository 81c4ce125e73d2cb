import { signal } from "@preact/signals-react";
import type { ComponentType } from "react";

/**
 * The main screen's chunk (client/app/MainArea.tsx): everything shown after unlock, and the
 * unlocked halves of push and passkeys. Fetched from the PIN pad on, while the PIN is typed
 * (client/main.tsx), never for the activation screen.
 *
 * The parts of the first load that reach into it (the push banner, the unlock screen, Options'
 * switches) sit below client/app in the declared folder order (tests/tools/folders.ts), so they
 * name the chunk by this shape, and client/app/main_chunk.ts provides the loader; TypeScript
 * checks there that the chunk has this shape.
 */
export interface MainChunk {
  default: ComponentType;
  push: {
    openLink(url: string): Promise<boolean>;
    refreshPush(vapidKey: string | null): Promise<void>;
    PushBannerView: ComponentType;
  };
  passkey: {
    PasskeyLine: ComponentType;
    AfterUnlockSwitches: ComponentType;
  };
}

/** The chunk once it is in, else null: what needs it renders once it is there. */
export const mainChunk = signal<MainChunk | null>(null);

let loader: (() => Promise<MainChunk>) | null = null;

/** Set once, by client/app/main_chunk.ts (its import() is where the bundle splits). */
export function provideMainChunk(load: () => Promise<MainChunk>): void {
  loader = load;
}

/** Fetches the chunk (once: import() keeps it). */
export const loadMainChunk = (): Promise<MainChunk> =>
  loader ? loader().then((m) => (mainChunk.value = m)) : Promise.reject(
    new Error("the main chunk's loader is not provided (client/app/main_chunk.ts)"),
  );
