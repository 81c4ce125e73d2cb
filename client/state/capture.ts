import { signal } from "@preact/signals-react";

// A receipt photographed on the device (spec §5 Upload; "Take photo"): the pages taken so
// far, each as shot and enhanced, and whether Enhance is on. Signals only: written by
// client/actions/capture.ts, and by client/actions/deep_link.ts for the request below.

/**
 * The transaction whose "Take photo" control takes the focus when its detail shows (a
 * purchase notification's "Add receipt": the first tap after the PIN is the camera).
 */
export const captureRequest = signal<string | null>(null);

export interface CapturedPage {
  id: string;
  plain: { file: Blob; preview: Blob | null; width: number; height: number; url: string };
  enhanced: { file: Blob; preview: Blob | null; width: number; height: number; url: string } | null;
}

export interface CaptureDraft {
  txOid: string;
  pages: CapturedPage[];
  /** Enhance: on by default, undoable until the receipt is sent. */
  enhance: boolean;
  /** A photo is being prepared (decoded, scaled, enhanced). */
  preparing: boolean;
  error: string | null;
}

export const captureDraft = signal<CaptureDraft | null>(null);
