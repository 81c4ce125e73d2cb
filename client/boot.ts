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

/**
 * Buttons tapped on the static screen (PIN pad keys, Options, "send activation email"), kept
 * until the app has taken it over, then tapped again on the app's own: a PIN typed on a slow
 * phone before the app ran is not lost. App marks the document `data-app="taken"` when its first
 * render is in (from then on its controls answer: nothing more is kept) and `"live"` once its
 * effects ran. A button is known by its class, its parent's class and its place among its like
 * (the same in both: the markup is the components' own). Nothing is tapped once the app shows
 * another screen than the static one.
 */
const marks = document.documentElement.dataset;
const phaseOf = () => document.querySelector<HTMLElement>("#root > [data-phase]")?.dataset.phase;
const first = phaseOf();
const like = (cls: string, parent = "") =>
  [...document.querySelectorAll<HTMLElement>("#root button")].filter((b) =>
    b.className === cls && b.parentElement?.className === parent
  );
if (first) {
  const taps: [string, string, number][] = [];
  addEventListener("click", (e) => {
    const b = (e.target as Element).closest?.("button");
    const parent = b?.parentElement?.className;
    if (b && !marks.app) taps.push([b.className, parent!, like(b.className, parent).indexOf(b)]);
  }, true);
  new MutationObserver(async (_, seen) => {
    if (marks.app !== "live") return;
    seen.disconnect();
    for (const [cls, parent, i] of taps) {
      // One at a time: each tap is rendered before the next reads the entry.
      await new Promise((next) => setTimeout(next, 20));
      if (phaseOf() !== first) return;
      like(cls, parent)[i]?.click();
    }
  }).observe(document.documentElement, { attributeFilter: ["data-app"] });
}

// After the first frame is painted; a page opened in the background paints nothing yet.
if (document.visibilityState === "hidden") start();
else requestAnimationFrame(() => setTimeout(start, 0));
