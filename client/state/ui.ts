import type { ReactNode } from "react";
import { signal } from "@preact/signals-react";
import { sourceOf, t, type TranslationKey } from "../i18n/index.ts";

/** spec §2: error banners, a list of messages each with a remove button. */
export interface Banner {
  id: number;
  message: string;
  /**
   * What the banner offers to fix it: "receipt" (spec §5 block: transactions with no
   * receipt) opens the first transaction concerned, and the banner goes when none is left.
   */
  fix?: "receipt";
  /** The translation the message came from: shown again in the language chosen later. */
  source?: [TranslationKey, Record<string, string | number> | undefined];
  /**
   * "info": something to know, nothing went wrong (drawn calm, not in the error colour);
   * errors (a refusal, a write not done) keep the error style.
   */
  tone?: "info";
}
export const banners = signal<Banner[]>([]);
let nextBanner = 1;

/**
 * Draws a banner's fix (its button); set by the main screen's chunk, which holds the screens
 * a fix opens, so the shell's first load does not carry them.
 */
export const bannerFix = signal<((fix: NonNullable<Banner["fix"]>) => ReactNode) | null>(null);

/** A banner's text in the language shown now (a server's message stays as it came). */
export const bannerText = (b: Banner) => b.source ? t(...b.source) : b.message;

export function pushBanner(message: string, fix?: Banner["fix"], tone?: Banner["tone"]): void {
  const source = sourceOf(message);
  // Being offline is a state, not an error: the offline strip says it (spec §1 offline).
  if (message === t("common.offline")) return netDown();
  if (banners.value.some((b) => bannerText(b) === message)) return;
  banners.value = [
    ...banners.value,
    {
      id: nextBanner++,
      message,
      ...(fix ? { fix } : {}),
      ...(source ? { source } : {}),
      ...(tone ? { tone } : {}),
    },
  ];
}
/** Removes the banners showing any of these messages (they no longer hold). */
export function dropBanners(messages: string[]): void {
  // The server answered again: 'offline', 'could not be reached' and 'needs a connection'
  // no longer hold.
  if (messages.includes(t("common.offline"))) {
    netUp();
    messages = [...messages, t("common.needsConnection")];
  }
  if (banners.value.some((b) => messages.includes(bannerText(b)))) {
    banners.value = banners.value.filter((b) => !messages.includes(bannerText(b)));
  }
}

/**
 * Whether the server can be reached, as the offline strip shows it (spec §1 offline: the
 * cached data stays usable): "offline" from the browser's offline event or a call that found
 * no network, "back" for a moment once the browser or an answer says it returned.
 */
export const network = signal<"online" | "offline" | "back">(
  typeof navigator !== "undefined" && navigator.onLine === false ? "offline" : "online",
);
/** How long "Back online" stays. */
export const BACK_ONLINE_MS = 3000;
let backTimer: ReturnType<typeof setTimeout> | undefined;
export function netDown(): void {
  clearTimeout(backTimer);
  network.value = "offline";
}
export function netUp(): void {
  if (network.peek() !== "offline") return;
  network.value = "back";
  clearTimeout(backTimer);
  backTimer = setTimeout(() => {
    if (network.peek() === "back") network.value = "online";
  }, BACK_ONLINE_MS);
}
export function removeBanner(id: number): void {
  banners.value = banners.value.filter((b) => b.id !== id);
}

/** A short confirmation ('Request R000003 submitted') shown for a few seconds. */
export const notice = signal<string | null>(null);
let noticeTimer: ReturnType<typeof setTimeout> | undefined;
export function showNotice(message: string, ms = 4000): void {
  notice.value = message;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => (notice.value = null), ms);
}

/**
 * A blocking action under way (a decision: spec "no optimistic success"): its text is shown
 * over the screen until the server answers.
 */
export const progress = signal<string | null>(null);

/** Which side panel is open; one at a time, like the original app. */
export type PanelName = "options" | "menu" | "lost" | "export" | null;
export const panel = signal<PanelName>(null);
/** Whether the options panel was opened from the PIN/home screen (spec §2 push toggle rule). */
export const optionsFromHome = signal(false);

export interface ConfirmRequest {
  message: string;
  extra?: string;
  showNo: boolean;
  /**
   * The label of the Yes button: an acknowledgement ('OK') or the action's verb ('Submit',
   * 'Approve', 'Delete'), never a bare 'Yes'.
   */
  yesLabel: string;
  /** The label of the No button: what not doing it means ('Keep'), instead of 'No'. */
  noLabel?: string;
  /** A destructive action: its button (labelled with the verb) is red. */
  danger?: boolean;
  onYes: () => void | Promise<void>;
}
/** spec §2 confirm panel: message, extra text, optional No, Yes. */
export const confirmRequest = signal<ConfirmRequest | null>(null);

export function askConfirm(req: ConfirmRequest): void {
  confirmRequest.value = req;
}

/**
 * Stacked side panels of the main screen (request detail → edit, create → field selector →
 * date picker…). The top one is active; a closing one stays for its 300 ms slide.
 */
export type Sheet =
  | { kind: "detail"; oid: string }
  | { kind: "approval"; oid: string }
  | { kind: "card"; oid: string }
  /** spec §2 Transaction detail and its Flip form. */
  | { kind: "transaction"; oid: string }
  | { kind: "flip" }
  /** spec §2 VAT side panel, receipt notes panel and document panel. */
  | { kind: "vat" }
  | { kind: "receiptNote" }
  | { kind: "documents" }
  /** spec §2 Secure side panel; `generateFor`: a request whose card is generated after it. */
  | { kind: "secure"; generateFor?: string }
  | { kind: "rejectNote" }
  | { kind: "install" }
  | { kind: "create" }
  | { kind: "edit" }
  | { kind: "filter" }
  | { kind: "budget" }
  | { kind: "select"; select: SelectSpec }
  | { kind: "date"; value: string; onPick: (isoDay: string) => void };

export interface SelectOption {
  value: string;
  label: string;
  detail?: string;
}
export interface SelectSpec {
  title: string;
  options: SelectOption[];
  /** Multi-select (filter sub-lists: search, select all, OK) or one choice. */
  multiple: boolean;
  selected: string[];
  /** Offer 'None' in a single choice of an optional field. */
  allowNone?: boolean;
  onDone: (values: string[]) => void;
}

export interface SheetEntry {
  id: number;
  sheet: Sheet;
  open: boolean;
}
export const sheets = signal<SheetEntry[]>([]);
let nextSheet = 1;
/** spec §9: side panel slide 300 ms. */
const SLIDE_MS = 300;

export function openSheet(sheet: Sheet): void {
  sheets.value = [...sheets.value, { id: nextSheet++, sheet, open: true }];
}

/** Closes the top panel (or the given one) with its slide-out. */
export function closeSheet(id?: number): void {
  const open = sheets.value.filter((s) => s.open);
  const target = id ?? open[open.length - 1]?.id;
  if (target === undefined) return;
  sheets.value = sheets.value.map((s) => s.id === target ? { ...s, open: false } : s);
  setTimeout(() => (sheets.value = sheets.value.filter((s) => s.id !== target)), SLIDE_MS);
}

export function closeAllSheets(): void {
  sheets.value = [];
}
