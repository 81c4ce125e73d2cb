/**
 * The two modes of the main screen (spec §2): request mode (Requests, Wallet, Transactions)
 * and approval mode (Approvals). Pure rules, shared by the app and its unit tests.
 */
export type Mode = "request" | "approval";

/** spec §9 theme colour: dark slate in request mode; green in the other (approval) mode. */
export const THEME_COLOR: Record<Mode, string> = {
  request: "#2f3e4e",
  approval: "#1f7a4d",
};

/** What the first load of a session tells about the person's work. */
export interface ModeFacts {
  /** Approval requests exist for them (spec §6: only then is approval mode offered). */
  hasApprovals: boolean;
  /** Approvals in status new they may approve or reject now. */
  approvalsToDecide: number;
  /** Their requests that need attention (the Requests badge). */
  requestsNeedingAttention: number;
  canRequest: boolean;
  hasRequests: boolean;
}

/** spec §6: switching to approval mode is offered only when approval requests exist. */
export function approvalModeOffered(f: Pick<ModeFacts, "hasApprovals">): boolean {
  return f.hasApprovals;
}

/**
 * spec §2/§4 automatic switch, applied once after the first load of a session (a manual
 * switch afterwards is never undone by a refresh):
 * - approval mode without approval requests falls back to request mode;
 * - requests needing attention bring the person to request mode (spec §4);
 * - otherwise, approvals waiting for their decision, or a person who only approves (cannot
 *   request and has no requests), bring them to approval mode.
 */
export function modeAfterLoad(current: Mode, f: ModeFacts): Mode {
  if (!approvalModeOffered(f)) return "request";
  if (f.requestsNeedingAttention > 0) return "request";
  if (f.approvalsToDecide > 0) return "approval";
  if (!f.canRequest && !f.hasRequests) return "approval";
  return current;
}

/** Whether the app runs from the home screen (app mode) rather than in a browser tab. */
export function isAppMode(
  w: { matchMedia?: (q: string) => { matches: boolean }; navigator?: unknown },
): boolean {
  const nav = w.navigator as { standalone?: boolean } | undefined;
  if (nav?.standalone === true) return true;
  return !!w.matchMedia?.("(display-mode: standalone)").matches ||
    !!w.matchMedia?.("(display-mode: fullscreen)").matches;
}

/** iPhone, iPad (also iPadOS announcing itself as a Mac with touch) and iPod. */
export function isIOS(userAgent: string, maxTouchPoints = 0): boolean {
  if (/iPhone|iPad|iPod/.test(userAgent)) return true;
  return /Macintosh/.test(userAgent) && maxTouchPoints > 1;
}
