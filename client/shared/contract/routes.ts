// The zod-free half of the contract (engineering.md §1): where each call of spec §7 'Registration
// and session' goes and how it authenticates. The PIN pad's first load carries this and not the
// schemas; session.ts builds its endpoints from these very objects, so the two cannot differ.

/** How a call authenticates (spec §6, §7): registration and PIN calls use the device-id header. */
export type Auth = "none" | "bearer" | "device" | "bearer-or-device";

/** Method, path under /bonita and auth of one call of spec §7. */
export interface Route {
  method: "GET" | "POST";
  path: string;
  auth: Auth;
}

/** The header that identifies a device on registration and PIN calls. */
export const DEVICE_ID_HEADER = "device-id";

const E = "/scmapi/expense";

export const sessionRoutes = {
  initialize: { method: "GET", path: "/qtservlet/initialize", auth: "none" },
  appcolor: { method: "GET", path: "/qtservlet//appcolor", auth: "none" },
  translation: { method: "GET", path: `${E}/pwatranslation`, auth: "bearer-or-device" },
  lists: { method: "GET", path: `${E}/pwalists`, auth: "bearer" },
  /** The tokenless variant: only what an unactivated device may see, no user data. */
  publicLists: { method: "GET", path: "/qtservlet/expense/pwalists", auth: "none" },
  registerPushToken: { method: "POST", path: `${E}/pwaregisterpushtoken`, auth: "bearer" },
  checkValidation: { method: "POST", path: `${E}/pwacheckvalidation`, auth: "device" },
  activationEmail: { method: "POST", path: `${E}/pwaactivationemail`, auth: "device" },
  secretAnswer: { method: "POST", path: `${E}/pwasecretanswer`, auth: "device" },
  confirmPin: { method: "POST", path: `${E}/pwaconfirmpin`, auth: "device" },
  checkRegistered: { method: "POST", path: `${E}/pwacheckregistered`, auth: "device" },
  checkPinValid: { method: "POST", path: `${E}/pwacheckpinvalid`, auth: "device" },
  unregister: { method: "POST", path: `${E}/pwaunregister`, auth: "device" },
  supportUrl: { method: "GET", path: `${E}/pwasupporturl`, auth: "bearer" },
  secretQuestions: { method: "GET", path: `${E}/pwasecretquestions`, auth: "bearer" },
} as const satisfies Record<string, Route>;
