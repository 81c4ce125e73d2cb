import { signal } from "@preact/signals-react";

/** spec §2 wallet sub-filters; closing a request switches to Closed (spec §4). */
export type WalletFilter = "notClosed" | "Active" | "Closed";
export const walletFilter = signal<WalletFilter>("notClosed");
