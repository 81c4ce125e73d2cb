/**
 * Web push in the service worker (spec §1 push notifications, §2 push message
 * banners, §3 push message: notification title and body).
 *
 * A push carries JSON `{title, body, url, tag, actions, change}` (`url` a deep link of our
 * origin such as `/?open=transaction:<oid>`, see client/shared/push_links.ts; each action a
 * button with its own link). When a window of the app is on screen the worker hands the message
 * to it and the app shows its in-app push banner (with the same buttons); otherwise it shows a
 * system notification. A notification click closes it and opens the item, or the clicked
 * button's link: in an open window of the app (posted to it, so the unlocked app is not reloaded
 * and locked again), else in a new window.
 *
 * The worker only shows and opens: it holds no credentials (the token is sealed by the PIN's key
 * and lives in the page's memory once unlocked) and calls no API, so a button such as "Approve"
 * can only open the app, which asks for the unlock before the decision (docs/messages.md).
 *
 * The page side reads the same message types: this module has no top-level side effects, so
 * the page bundle takes only the constants and guards it imports.
 */

/** Worker → page: show this push in the in-app banner (the app is on screen). */
export const PUSH_MESSAGE = "qc-push";
/** Worker → page: open this deep link (a notification was clicked). */
export const OPEN_LINK = "qc-open";

/** What a push carries, checked. */
export interface PushPayload {
  title: string;
  body: string;
  /** Absolute URL of our origin: the item to open. */
  url: string;
  tag?: string;
  /**
   * Notification buttons (a purchase's "Add receipt", an approval's "Approve" and "Reject"):
   * each opens its own `url` (checked like the body's), or the body's when it has none.
   */
  actions?: { action: string; title: string; url?: string }[];
  /**
   * What changed (the change channel's kind and id; no amounts, no card data): the open app
   * reads those lists again even when its stream is closed.
   */
  change?: { kind: string; id: string };
}

/** Worker → page messages. */
export type PushPageMessage =
  | ({ type: typeof PUSH_MESSAGE } & PushPayload)
  | { type: typeof OPEN_LINK; url: string };

/** The icon shown with notifications (the manifest's); Android masks the badge to white. */
const ICON = "/icons/icon-192.png";
/** spec §3: a push message has a title; one that lost it still says whose it is. */
const FALLBACK_TITLE = "QCard";

/**
 * A deep link of our origin, absolute; anything else (another origin, `javascript:`, junk)
 * becomes the app's start page: a push must never send the person somewhere else.
 */
export function safeUrl(url: unknown, origin: string): string {
  if (typeof url === "string") {
    try {
      const u = new URL(url, origin);
      if (u.origin === origin) return u.href;
    } catch { /* not a URL */ }
  }
  return new URL("/", origin).href;
}

/** The push's JSON text, checked; a payload that is not ours still shows something. */
export function parsePayload(text: string | null | undefined, origin: string): PushPayload {
  let raw: Record<string, unknown> | null = null;
  try {
    const v = JSON.parse(text ?? "");
    if (v && typeof v === "object") raw = v as Record<string, unknown>;
  } catch { /* not JSON: the text is the body */ }
  const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");
  if (!raw) return { title: FALLBACK_TITLE, body: str(text), url: safeUrl(null, origin) };
  const title = str(raw.title) || FALLBACK_TITLE;
  const body = str(raw.body);
  const tag = str(raw.tag);
  // At most two buttons (what Chromium shows), each a short action name, a title and maybe
  // a link of our origin.
  const actions = (Array.isArray(raw.actions) ? raw.actions : [])
    .map((a) => ({
      action: str(a?.action),
      title: str(a?.title),
      ...(typeof a?.url === "string" ? { url: safeUrl(a.url, origin) } : {}),
    }))
    .filter((a) => /^[a-z]{1,20}$/.test(a.action) && a.title).slice(0, 2);
  const ch = raw.change as { kind?: unknown; id?: unknown } | null | undefined;
  const change = ch && typeof ch === "object" && /^[a-z]{1,20}$/.test(str(ch.kind)) &&
      /^[A-Za-z0-9_.:-]{1,64}$/.test(str(ch.id))
    ? { kind: str(ch.kind), id: str(ch.id) }
    : null;
  return {
    title,
    body,
    url: safeUrl(raw.url, origin),
    ...(tag ? { tag } : {}),
    ...(actions.length ? { actions } : {}),
    ...(change ? { change } : {}),
  };
}

/** Whether a message posted by the worker is one of ours, for the page's listener. */
export function isPushPageMessage(data: unknown): data is PushPageMessage {
  if (typeof data !== "object" || data === null) return false;
  const m = data as Record<string, unknown>;
  return typeof m.url === "string" &&
    (m.type === OPEN_LINK ||
      (m.type === PUSH_MESSAGE && typeof m.title === "string" && typeof m.body === "string"));
}

// ---- The worker's side. deno.json types against lib dom, so the worker API is named here. ----

interface WindowClientLike {
  readonly url: string;
  readonly focused: boolean;
  readonly visibilityState: string;
  postMessage(message: unknown): void;
  focus(): Promise<unknown>;
}

interface ExtendableEventLike {
  waitUntil(p: Promise<unknown>): void;
}

interface NotificationLike {
  readonly data: unknown;
  close(): void;
}

/** What a shown notification keeps: the body's link and each button's. */
interface NotificationData {
  url: string;
  links?: Record<string, string>;
}

/** The part of ServiceWorkerGlobalScope used here. */
export interface PushScope {
  readonly location: { readonly origin: string };
  readonly clients: {
    matchAll(
      options: { type: "window"; includeUncontrolled: boolean },
    ): Promise<readonly WindowClientLike[]>;
    openWindow(url: string): Promise<unknown>;
  };
  readonly registration: {
    showNotification(title: string, options: NotificationOptions): Promise<void>;
  };
  addEventListener(
    type: "push",
    listener: (event: ExtendableEventLike & { readonly data: { text(): string } | null }) => void,
  ): void;
  addEventListener(
    type: "notificationclick",
    listener: (
      event: ExtendableEventLike & {
        readonly notification: NotificationLike;
        /** The button clicked; "" for the body. */
        readonly action?: string;
      },
    ) => void,
  ): void;
}

/**
 * The app's windows: the shell at the root (spec §2: no URL routes). Other pages of the
 * origin (the developer outbox, the issuer's test page) are not the app.
 */
async function appWindows(scope: PushScope): Promise<WindowClientLike[]> {
  const all = await scope.clients.matchAll({ type: "window", includeUncontrolled: true });
  return all.filter((c) => {
    try {
      const u = new URL(c.url);
      return u.origin === scope.location.origin &&
        (u.pathname === "/" || u.pathname === "/index.html");
    } catch {
      return false;
    }
  });
}

const onScreen = (c: WindowClientLike) => c.focused || c.visibilityState === "visible";

/** A push: the in-app banner when the app is on screen, else a system notification. */
export async function handlePush(scope: PushScope, text: string | null): Promise<void> {
  const p = parsePayload(text, scope.location.origin);
  const visible = (await appWindows(scope)).filter(onScreen);
  if (visible.length) {
    const message: PushPageMessage = { type: PUSH_MESSAGE, ...p };
    for (const c of visible) c.postMessage(message);
    return;
  }
  const links: Record<string, string> = {};
  for (const a of p.actions ?? []) if (a.url) links[a.action] = a.url;
  const data: NotificationData = { url: p.url, ...(Object.keys(links).length ? { links } : {}) };
  await scope.registration.showNotification(p.title, {
    body: p.body,
    // A newer push about the same item replaces the older one instead of piling up.
    ...(p.tag ? { tag: p.tag } : {}),
    // Buttons where the platform has them (Chromium: `actions` is not yet in lib dom's type);
    // a button opens its own link, the body the item's (handleClick).
    ...(p.actions ? { actions: p.actions.map(({ action, title }) => ({ action, title })) } : {}),
    data,
    icon: ICON,
    badge: ICON,
  });
}

/**
 * A notification click: the item (or the clicked button's link) opens in a window of the app,
 * or in a new one. Opening is all: a decision's link is confirmed in the app after its unlock.
 */
export async function handleClick(scope: PushScope, data: unknown, action = ""): Promise<void> {
  const d = data as Partial<NotificationData> | null;
  const chosen = action && typeof d?.links?.[action] === "string" ? d.links[action] : d?.url;
  const url = safeUrl(chosen, scope.location.origin);
  const wins = await appWindows(scope);
  const win = wins.find((c) => c.focused) ?? wins.find(onScreen) ?? wins[0];
  if (win) {
    const message: PushPageMessage = { type: OPEN_LINK, url };
    win.postMessage(message);
    await win.focus().catch(() => {/* not allowed outside a click: the message still opens it */});
    return;
  }
  await scope.clients.openWindow(url);
}

/** Wires the push and notificationclick events. */
export function listenForPush(scope: PushScope): void {
  scope.addEventListener("push", (event) => {
    event.waitUntil(handlePush(scope, event.data?.text() ?? null));
  });
  scope.addEventListener("notificationclick", (event) => {
    event.notification.close();
    event.waitUntil(handleClick(scope, event.notification.data, event.action ?? ""));
  });
}
