/**
 * Screenshots for docs/screens.md, shared by the screenshot scripts (tests/e2e/screens*.ts, not
 * tests): the page at rest (no panel sliding, transitions done), written to
 * docs/screenshots/<name>.png.
 */
import type { Page } from "puppeteer-core";
import { settled } from "./panels.ts";

const OUT = new URL("../../docs/screenshots/", import.meta.url);

export async function shot(p: Page, name: string): Promise<void> {
  await Deno.mkdir(OUT, { recursive: true });
  await settled(p).catch(() => {});
  await new Promise((r) => setTimeout(r, 400)); // the notice, pill and panel transitions
  await p.screenshot({ path: `${OUT.pathname}${name}.png` as `${string}.png` });
  console.log(`docs/screenshots/${name}.png`);
}
