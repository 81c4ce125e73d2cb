/**
 * The manifest's shortcuts (spec §1 installed app): a long press on the home-screen icon
 * offers 'New request' (`/?open=new-request`) and 'Wallet' (`/?open=wallet`). The app
 * opens on the PIN pad as always; once unlocked, the main screen takes the shortcut here.
 * Other `?open=` values (deep links `kind:oid`, client/actions/deep_link.ts) are left alone.
 */

/** The `open` values static/manifest.webmanifest names. */
export type Shortcut = "new-request" | "wallet";

/** The shortcut a URL's search names, if any. */
export function shortcutOf(search: string): Shortcut | null {
  const open = new URLSearchParams(search).get("open");
  return open === "new-request" || open === "wallet" ? open : null;
}

/**
 * The shortcut the app was opened with, once: the address loses its `open` parameter, so a
 * reload or the next unlock does not take it again.
 */
export function takeShortcut(): Shortcut | null {
  if (typeof location === "undefined") return null;
  const found = shortcutOf(location.search);
  if (found) {
    const url = new URL(location.href);
    url.searchParams.delete("open");
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  }
  return found;
}
