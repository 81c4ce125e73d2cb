import { computed, signal } from "@preact/signals-react";

/** spec §4 device activation: needsValidating → needsConfirming → unlocked (plus PIN unlock). */
export type Phase = "boot" | "activate" | "definePin" | "unlock" | "main" | "failed";
export const phase = signal<Phase>("boot");

/** What /qtservlet/initialize tells an unactivated device. */
export const appConfig = signal<{
  extensions: string[];
  faqUrl: string | null;
  chatUrl: string | null;
  vapidPublicKey: string | null;
}>({ extensions: [], faqUrl: null, chatUrl: null, vapidPublicKey: null });

/** PIN length from the cookie (spec §4: unlock uses it). */
export const pinLength = signal(6);
/** A message shown on the PIN pad (rule violation, wrong PIN, wiped…). */
export const padMessage = signal<string | null>(null);
/** Increments to make the pad shake (0.5 s) and clear its entry. */
export const shakeCount = signal(0);
/** Define PIN: the new PIN was entered once and is being confirmed. */
export const pinConfirming = signal(false);
export const working = signal(false);

export interface Profile {
  username: string;
  fname: string;
  lname: string;
  canRequest: boolean;
  /** A finance user: the menu offers the accounting export. */
  finance?: boolean;
}
export const profile = signal<Profile | null>(null);
export const supportUrl = signal<string | null>(null);
/** True when the data on screen came from the local cache because the network failed. */
export const fromCache = signal(false);

export const displayName = computed(() => {
  const p = profile.value;
  return p ? `${p.fname} ${p.lname}`.trim() : "";
});

/** Requests needing attention (needsAttention rows of pwalists' expenses). */
export const requestAttention = signal(0);
/** Card transactions needing attention: a receipt overdue (spec §2 badge, §5 missing receipts). */
export const transactionAttention = signal(0);
/** spec §2 main badge: requests needing the person plus transactions needing a receipt. */
export const attentionCount = computed(() => requestAttention.value + transactionAttention.value);
