import { signal } from "@preact/signals-react";

/** spec §2: error banners, a list of messages each with a remove button. */
export interface Banner {
  id: number;
  message: string;
}
export const banners = signal<Banner[]>([]);
let nextBanner = 1;

export function pushBanner(message: string): void {
  if (banners.value.some((b) => b.message === message)) return;
  banners.value = [...banners.value, { id: nextBanner++, message }];
}
export function removeBanner(id: number): void {
  banners.value = banners.value.filter((b) => b.id !== id);
}

/** Which side panel is open; one at a time, like the original app. */
export type PanelName = "options" | "menu" | "lost" | null;
export const panel = signal<PanelName>(null);
/** Whether the options panel was opened from the PIN/home screen (spec §2 push toggle rule). */
export const optionsFromHome = signal(false);

export interface ConfirmRequest {
  message: string;
  extra?: string;
  showNo: boolean;
  onYes: () => void | Promise<void>;
}
/** spec §2 confirm panel: message, extra text, optional No, Yes. */
export const confirmRequest = signal<ConfirmRequest | null>(null);

export function askConfirm(req: ConfirmRequest): void {
  confirmRequest.value = req;
}
