import { signal } from "@preact/signals-react";

/** A passkey wrapper is stored on this device: the unlock screen offers the passkey. */
export const passkeyOn = signal(false);
/** The browser's passkey prompt is open (the unlock screen shows "Use PIN instead"). */
export const passkeyPrompting = signal(false);
