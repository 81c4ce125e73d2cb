import { loadMainChunk, mainChunk, provideMainChunk } from "../state/main_chunk.ts";

/**
 * The split point of the bundle: the main screen's chunk is client/app/MainArea.tsx, loaded by
 * this import(). The shape the first load may use of it is client/state/main_chunk.ts's
 * MainChunk; passing the import() here is where TypeScript checks that MainArea.tsx has it.
 */
provideMainChunk(() => import("./MainArea.tsx"));

export { mainChunk };
/** Fetches the chunk (once: import() keeps it). */
export const loadMainArea = loadMainChunk;
