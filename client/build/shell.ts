/**
 * Build code (run by Deno from build.ts, never bundled into the app): the shells — index.html,
 * unlock.html and app.html with the hashed files of this build — and the static files.
 */
import type * as esbuild from "esbuild";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT, toUrlPath, walk } from "./files.ts";
import { firstScreenCss } from "./first_css.ts";
import type { Release } from "./release.ts";

/** The output of `entry` first, then every output it imports statically (transitively). */
export function staticGraph(meta: esbuild.Metafile, entry: string): string[] {
  const found = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === entry);
  if (!found) throw new Error(`esbuild produced no output for ${entry}`);
  const seen = new Set<string>();
  const walk = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const imp of meta.outputs[output]?.imports ?? []) {
      if (imp.kind === "import-statement" && !imp.external) walk(imp.path);
    }
  };
  walk(found[0]);
  return [...seen];
}

/** The hashed files index.html loads. */
export interface Shell {
  /** Entry first, then every chunk it imports statically (transitively). */
  js: string[];
  css: string | null;
  /**
   * The static shells' script (client/boot.ts, bundled and minified), which loads `js` after
   * the first paint. Inline in the shells: as a file of its own it was a request before the
   * first paint that the first screen does not need.
   */
  boot: string;
}

/** Reads `entryModule`'s static import graph and stylesheet out of esbuild's metafile. */
export function shellFiles(
  meta: esbuild.Metafile,
  outDir: string,
  entryModule: string,
  boot: string,
): Shell {
  const urlOf = (output: string) => toUrlPath(outDir, resolve(ROOT, output));
  const outputs = Object.entries(meta.outputs);
  const graph = staticGraph(meta, entryModule);
  const css = meta.outputs[graph[0]].cssBundle ?? null;
  // esbuild emits CSS reached only through import() as a separate file that nothing loads.
  const strayCss = outputs.map(([p]) => p).filter((p) => p.endsWith(".css") && p !== css);
  if (strayCss.length) {
    throw new Error(
      `CSS imported only from lazily loaded code would never be applied: ${strayCss.join(", ")}.` +
        ` Import it from a module that ${entryModule} imports statically.`,
    );
  }
  return { js: graph.map(urlOf), css: css ? urlOf(css) : null, boot };
}

/**
 * Classes the pad screens take as they are used, beyond their static markup: typed digits
 * (PinPad.tsx: filled), a refused entry (shake), the connect / save button (PadScreen.tsx),
 * define PIN's way back (DefinePinScreen.tsx), the start's status line (App.tsx). Their rules
 * are inlined with the first screen's: a tap answered before the whole stylesheet is in is
 * styled.
 */
export const PAD_STATE_CLASSES = ["filled", "shake", "primary", "wide", "passkey-line", "loading"];

/**
 * Copies static/ into outDir; index.html gets the activation screen's markup in its root (a
 * first visit paints it before any script), the part of the stylesheet the first screens need
 * inline (client/build/first_css.ts) and the boot script, which links the whole stylesheet and
 * fetches the app after the first paint. Two more shells: `unlock.html` with the PIN pad (the
 * server answers it to a navigation that carries the PIN length cookie, spec §4) and `app.html`
 * with an empty root, the stylesheet, preloads and entry (the service worker's shell: it cannot
 * read the cookies on every phone, so the app renders the screen).
 */
export async function copyStatic(
  from: string,
  to: string,
  shell: Shell,
  release: Release,
): Promise<void> {
  const { renderFirstScreen } = await import("../app/static_shell.tsx");
  for await (const file of walk(from)) {
    const target = join(to, relative(from, file));
    await Deno.mkdir(dirname(target), { recursive: true });
    if (relative(from, file) === "index.html") {
      const source = await Deno.readTextFile(file);
      const screens = [
        renderFirstScreen("activate", release),
        renderFirstScreen("unlock", release),
      ];
      const css = shell.css
        ? firstScreenCss(
          await Deno.readTextFile(join(to, shell.css)),
          [...screens, `<i class="${PAD_STATE_CLASSES.join(" ")}">`].join(""),
        )
        : null;
      const icon = await Deno.readTextFile(join(from, "icons", "icon.svg")).catch(() => undefined);
      const html = injectStaticShell(source, shell, css, icon);
      await Deno.writeTextFile(target, fillRoot(html, screens[0]));
      await Deno.writeTextFile(join(to, UNLOCK_SHELL), fillRoot(html, screens[1]));
      await Deno.writeTextFile(join(to, APP_SHELL), injectShell(source, shell));
    } else {
      await Deno.copyFile(file, target);
    }
  }
}

/**
 * Adds the hashed files to the shell's head. Only external scripts and stylesheets: the
 * server's CSP is `script-src 'self'`, so an inline script or style would be blocked.
 */
export function injectShell(html: string, shell: Pick<Shell, "js" | "css">): string {
  const [entry, ...chunks] = shell.js;
  return intoHead(html, [
    ...(shell.css ? [`<link rel="stylesheet" href="${shell.css}">`] : []),
    ...chunks.map((src) => `<link rel="modulepreload" href="${src}">`),
    `<script type="module" src="${entry}"></script>`,
  ]);
}

/**
 * The head of the static shells (`index.html`, `unlock.html`: a first visit, no service
 * worker yet): the first screens' part of the stylesheet inline (`css`), so the first screen
 * paints when the HTML arrives, and one inline module script, client/boot.ts, which links the
 * whole stylesheet (`data-style`) and fetches the entry and its chunks after that paint. Nothing
 * is fetched before the first paint (the manifest and icon links wait in a template). The server's CSP names the inline stylesheet and script by
 * their SHA-256 (server/routes/static.ts); every other script stays external
 * (`script-src 'self'`).
 */
export function injectStaticShell(
  html: string,
  shell: Shell,
  css: string | null,
  iconSvg?: string,
): string {
  if (css?.includes("</style")) throw new Error("the stylesheet cannot be inlined: </style");
  // A module script's text ends at the first "</script" and "<!--" changes how it is parsed.
  if (/<\/script|<!--/i.test(shell.boot)) {
    throw new Error("the boot script cannot be inlined: </script or <!--");
  }
  const [entry, ...chunks] = shell.js;
  // The manifest and icon links: fetched at once when parsed (the manifest then fetches its
  // icons), they would share the network with the first paint. In an inert <template> the boot
  // script puts into the head after that paint; the installed app's shell (app.html) links them.
  // The tab's icon is the SVG itself, inline (`iconSvg`: a few hundred bytes; without an icon
  // link the browser would ask for /favicon.ico at once).
  const later: string[] = [];
  html = html.replace(
    /[ \t]*<link rel="(?:manifest|icon|apple-touch-icon)"[^>]*>\n/g,
    (tag) => {
      if (iconSvg && /rel="icon"/.test(tag)) {
        const data = `data:image/svg+xml,${encodeURIComponent(iconSvg.trim())}`;
        return tag.replace(/href="[^"]*"/, `href="${data}"`);
      }
      later.push(tag.trim());
      return "";
    },
  );
  return intoHead(html, [
    ...(later.length ? [`<template data-after-paint>${later.join("")}</template>`] : []),
    // The source map comment's URL would be read relative to the page: left out.
    ...(css === null
      ? []
      : [`<style>${css.replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, "").trimEnd()}</style>`]),
    `<script type="module" data-entry="${entry}" data-preload="${chunks.join(" ")}"${
      shell.css ? ` data-style="${shell.css}"` : ""
    }>${shell.boot.replace(/\/\/# sourceMappingURL=\S*\s*$/, "").trim()}</script>`,
  ]);
}

/**
 * `tags` before static/index.html's `</head>`, one a line at its indent. The source itself may
 * hold nothing inline (scripts, styles, handlers): what the build adds is all there is.
 */
function intoHead(html: string, tags: string[]): string {
  if (/<script(?![^>]*\ssrc=)[^>]*>|<style[\s>]|\sstyle=|\son[a-z]+=/i.test(html)) {
    throw new Error("static/index.html must not contain inline scripts, styles or handlers");
  }
  if (!html.includes("</head>")) throw new Error("static/index.html has no </head>");
  return html.replace(
    /([ \t]*)<\/head>/,
    (_, indent: string) => `${tags.map((t) => `${indent}  ${t}\n`).join("")}${indent}</head>`,
  );
}

/** The shell with the PIN pad's markup, for a navigation with the PIN length cookie. */
export const UNLOCK_SHELL = "unlock.html";
/** The shell with an empty root, which the service worker answers navigations with. */
export const APP_SHELL = "app.html";

/** Puts `markup` into the shell's empty `<div id="root"></div>`. */
export function fillRoot(html: string, markup: string): string {
  const empty = '<div id="root"></div>';
  if (!html.includes(empty)) throw new Error(`static/index.html has no ${empty}`);
  return html.replace(empty, () => `<div id="root">${markup}</div>`);
}
