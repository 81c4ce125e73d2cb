/**
 * Where a push notification opens the app (spec §1 push notifications), shared by the server that
 * sends the notifications and the service worker and app that open them. Pure, no DOM.
 *
 * A notification's `url` is `/?open=<kind>:<oid>` on the app's origin, e.g.
 * `/?open=approval:5f0c…` — the approval request to decide, `/?open=request:…` — the
 * employee's request that was decided, `/?open=transaction:…` — a card transaction (a
 * purchase authorised or refused, a receipt overdue). Its `tag` is `<kind>:<oid>` too, so a
 * newer notice about the same item replaces the older one on the device.
 *
 * A purchase's notification adds an action to its link, `/?open=transaction:<oid>:receipt`:
 * the transaction opens (after the PIN) with the camera control ready, so the first tap takes
 * the receipt's photo; its notification carries the action "Add receipt" as a button where the
 * platform shows notification buttons, and its body tap does the same.
 *
 * An approval's notification has the buttons "Approve" (`/?open=approval:<oid>:approve`) and
 * "Reject" (`…:reject`); its body opens the approval alone. A decision link only pre-selects:
 * the app opens the approval after the person's unlock (PIN or passkey) and asks for the
 * decision there — nothing is decided from the link or the service worker (docs/messages.md).
 */
export const PUSH_OPEN_PARAM = "open";
export const PUSH_KINDS = ["request", "approval", "transaction"] as const;
export type PushKind = typeof PUSH_KINDS[number];
/**
 * What a link asks for beyond opening its item: "receipt" = the capture control ready (a
 * transaction); "approve", "reject" = that decision pre-selected, to confirm in the app (an
 * approval).
 */
export const PUSH_ACTIONS = ["receipt", "approve", "reject"] as const;
export type PushAction = typeof PUSH_ACTIONS[number];
/** The kind of item each action belongs to. */
const ACTION_KIND: Record<PushAction, PushKind> = {
  receipt: "transaction",
  approve: "approval",
  reject: "approval",
};

/** A notification button (Notification API `actions`); its click opens its own `url`. */
export interface PushButton {
  action: PushAction;
  title: string;
  /** pushLink(kind, oid, action): what the button opens. */
  url: string;
}

/** What a notification carries (the JSON of its encrypted payload). */
export interface PushPayload {
  title: string;
  body: string;
  /** The app URL to open on click: pushLink(kind, oid). */
  url: string;
  /** Notification tag: pushTag(kind, oid). */
  tag: string;
  /** Buttons shown where the platform supports them (Chromium on Android and desktops). */
  actions?: PushButton[];
  /** What changed (the change channel's kind and id): the open app's lists follow it. */
  change?: { kind: PushKind; id: string };
}

/** Record oids are UUIDs or short ids: letters, digits, dot, dash, underscore. */
const OID = /^[A-Za-z0-9._-]{1,128}$/;

export function pushTag(kind: PushKind, oid: string): string {
  return `${kind}:${oid}`;
}

/** The URL a notification about this item opens (relative to the app's origin). */
export function pushLink(kind: PushKind, oid: string, action?: PushAction): string {
  if (!OID.test(oid)) throw new Error(`not a record oid: ${oid}`);
  return `/?${PUSH_OPEN_PARAM}=${pushTag(kind, oid)}${action ? `:${action}` : ""}`;
}

/**
 * The item a URL opens, or null when it names none: accepts what pushLink makes, relative or
 * absolute (any origin: the caller decides whether it trusts it), and `location.search`.
 */
export function parsePushLink(
  url: string,
): { kind: PushKind; oid: string; action?: PushAction } | null {
  let value: string | null;
  try {
    const search = url.startsWith("?") ? url : new URL(url, "http://app.invalid/").search;
    value = new URLSearchParams(search).get(PUSH_OPEN_PARAM);
  } catch {
    return null;
  }
  const m = value ? /^([a-z]+):([^:]+)(?::([a-z]+))?$/.exec(value) : null;
  if (!m || !(PUSH_KINDS as readonly string[]).includes(m[1]) || !OID.test(m[2])) return null;
  if (m[3] !== undefined && !(PUSH_ACTIONS as readonly string[]).includes(m[3])) return null;
  // Only a transaction has a receipt to take, only an approval a decision.
  if (m[3] && ACTION_KIND[m[3] as PushAction] !== m[1]) return null;
  return { kind: m[1] as PushKind, oid: m[2], ...(m[3] ? { action: m[3] as PushAction } : {}) };
}

/** A link that pre-selects a decision: the app asks for the unlock before it opens it. */
export function isDecisionLink(url: string): boolean {
  const a = parsePushLink(url)?.action;
  return a === "approve" || a === "reject";
}
