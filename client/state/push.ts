import { signal } from "@preact/signals-react";

/**
 * spec §2 push message banner: the last push that arrived while the app was on screen (the
 * service worker hands it over instead of showing a system notification).
 */
export interface InAppPush {
  id: number;
  title: string;
  body: string;
  /** The deep link it opens (client/shared/push_links.ts). */
  url: string;
  /** Its buttons ("Add receipt", "Approve", "Reject"), each with the link it opens. */
  actions?: { action: string; title: string; url?: string }[];
}
export const inAppPush = signal<InAppPush | null>(null);
let nextPush = 1;

export function showInAppPush(p: Omit<InAppPush, "id">): void {
  inAppPush.value = { id: nextPush++, ...p };
}

export function dismissInAppPush(): void {
  inAppPush.value = null;
}

/**
 * A deep link waiting to be opened (`/?open=kind:oid` at start, a tapped banner, a clicked
 * notification). It is opened once the app is unlocked, never before the PIN.
 */
export const pendingLink = signal<string | null>(null);
