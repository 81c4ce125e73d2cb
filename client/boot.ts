/**
 * The only script of the static shells (`index.html`, `unlock.html`; build.ts), inline in them
 * (the server's CSP names it by its SHA-256): the first screen is painted from their markup and
 * the first screens' part of the stylesheet (inline) alone, with nothing fetched, then this
 * links the whole stylesheet, the manifest and the icons and fetches the app. Fetched before
 * that paint, they (or this script as a file) would share a slow network and a slow CPU with it
 * (the first screen of spec §2; Lighthouse figures in docs/benchmarks.md). The service worker's
 * shell (`app.html`) links them directly: its files come from the cache.
 *
 * The stylesheet, the entry and the chunks it imports are named by this script's element
 * (`data-style`, `data-entry`, `data-preload`). It imports nothing (build.ts checks): an import
 * would be a request before the first paint.
 */
const tag = document.querySelector<HTMLScriptElement>("script[data-entry]");

/** Settles once the whole stylesheet is in (or failed): kept taps wait for it. */
let styled!: () => void;
const whenStyled = new Promise<void>((done) => (styled = done));

function start(): void {
  // The manifest and icon links (build.ts keeps them out of the head until now).
  const later = document.querySelector<HTMLTemplateElement>("template[data-after-paint]");
  if (later) document.head.append(later.content);
  const entry = tag?.dataset.entry;
  if (!tag || !entry) return;
  const style = tag.dataset.style;
  if (style) {
    // Right after the inline part: a later <style> (the organisation's colours) still wins.
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = style;
    link.onload = link.onerror = () => styled();
    (document.querySelector("head > style") ?? tag).after(link);
  } else styled();
  // Then the entry and its chunks, one a task (each request's start costs the main thread a
  // few milliseconds on a slow CPU: ten at once were a long task), all asked for before the
  // entry arrives and names them.
  const steps = [
    () => void import(entry).catch((err) => console.error("QCard failed to load", err)),
    ...(tag.dataset.preload ?? "").split(" ").filter(Boolean).map((href) => () => {
      const link = document.createElement("link");
      link.rel = "modulepreload";
      link.href = href;
      document.head.appendChild(link);
    }),
  ];
  const next = () => {
    steps.shift()?.();
    if (steps.length) setTimeout(next, 0);
  };
  setTimeout(next, 0);
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
    if (taps.length) await whenStyled;
    for (const [cls, parent, i] of taps) {
      // One at a time: each tap is rendered before the next reads the entry.
      await new Promise((next) => setTimeout(next, 20));
      if (phaseOf() !== first) return;
      like(cls, parent)[i]?.click();
    }
  }).observe(document.documentElement, { attributeFilter: ["data-app"] });
}

/**
 * Runs `fn` once the first screen is on screen: when the browser reports its first contentful
 * paint (Paint Timing: the frame was presented, not only drawn), else two frames on. A frame's
 * animation callback runs before the frame is presented: what it started (the stylesheet, the
 * entry and its chunks) shared the network and the CPU with the first paint (Lighthouse
 * counted them in the first screen's LCP). Not later than half a second after the first frame.
 */
function afterFirstPaint(fn: () => void): void {
  let done = false;
  const go = () => {
    if (!done) fn();
    done = true;
  };
  requestAnimationFrame(() => setTimeout(go, 500));
  if (PerformanceObserver.supportedEntryTypes?.includes("paint")) {
    new PerformanceObserver((list, seen) => {
      if (!list.getEntriesByName("first-contentful-paint").length) return;
      seen.disconnect();
      setTimeout(go, 0);
    }).observe({ type: "paint", buffered: true });
  } else requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(go, 0)));
}

// A page opened in the background paints nothing yet: the app starts at once.
if (document.visibilityState === "hidden") start();
else afterFirstPaint(start);
