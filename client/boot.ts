/**
 * The only script of the static shells (`index.html`, `unlock.html`; build.ts): the first
 * screen is painted from their markup and inline stylesheet alone, then this fetches the app.
 * Fetched before that paint, the app's modules would share a slow network and a slow CPU
 * with it (the first screen of spec §2; Lighthouse figures in docs/benchmarks.md). The service worker's shell (`app.html`)
 * loads the entry directly: its files come from the cache.
 *
 * The entry and the chunks it imports are named by this script's element
 * (`data-entry`, `data-preload`), so this file needs no rebuild when they change.
 */
const tag = document.querySelector<HTMLScriptElement>("script[data-entry]");

function start(): void {
  if (!tag?.dataset.entry) return;
  for (const href of (tag.dataset.preload ?? "").split(" ").filter(Boolean)) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    document.head.appendChild(link);
  }
  import(tag.dataset.entry).catch((err) => console.error("QCard failed to load", err));
}

// After the first frame is painted; a page opened in the background paints nothing yet.
if (document.visibilityState === "hidden") start();
else requestAnimationFrame(() => setTimeout(start, 0));
