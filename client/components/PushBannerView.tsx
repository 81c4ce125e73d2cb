import type { CSSProperties } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t, type TranslationKey } from "../i18n/index.ts";
import { dismissInAppPush, type InAppPush, inAppPush, pendingLink } from "../state/push.ts";

const REGION: CSSProperties = {
  position: "fixed",
  top: 0,
  left: 0,
  right: 0,
  maxWidth: 560,
  margin: "0 auto",
  padding: "max(8px, env(safe-area-inset-top)) 8px 0",
  zIndex: 31,
  pointerEvents: "none",
};
const CARD: CSSProperties = {
  display: "flex",
  flexWrap: "wrap",
  alignItems: "center",
  background: "#17202a",
  color: "#fff",
  borderRadius: 12,
  boxShadow: "0 4px 12px rgba(0, 0, 0, .3)",
  pointerEvents: "auto",
};
const OPEN: CSSProperties = {
  flex: 1,
  minWidth: 0,
  minHeight: 48,
  padding: "10px 4px 10px 16px",
  background: "none",
  border: 0,
  color: "inherit",
  font: "inherit",
  textAlign: "left",
};
const LINE: CSSProperties = { display: "block", overflowWrap: "anywhere" };
/** The buttons' row under the text, full width: each a thumb-sized target. */
const ACTIONS: CSSProperties = {
  flexBasis: "100%",
  display: "flex",
  gap: 8,
  padding: "0 12px 12px 16px",
};
const ACTION: CSSProperties = {
  flex: 1,
  minHeight: 44,
  borderRadius: 8,
  border: "1px solid #fff",
  font: "inherit",
  fontWeight: 600,
};
/** The first button is the job the push is about (the receipt, the approval): filled. */
const FIRST: CSSProperties = { ...ACTION, background: "#fff", color: "#17202a" };
const OTHER: CSSProperties = { ...ACTION, background: "none", color: "#fff" };

/** The app's own words for a push's buttons (its language now); the push's title otherwise. */
const ACTION_LABEL: Record<string, TranslationKey> = {
  receipt: "push.addReceipt",
  approve: "approval.approve",
  reject: "approval.reject",
};

function Actions(props: { push: InAppPush }) {
  const { push } = props;
  const actions = push.actions ?? [];
  if (!actions.length) return null;
  return (
    <div className="push-banner-actions" style={ACTIONS}>
      {actions.map((a, i) => (
        <button
          key={a.action}
          type="button"
          className={`push-banner-action push-action-${a.action}`}
          style={i === 0 ? FIRST : OTHER}
          onClick={() => {
            dismissInAppPush();
            // A decision is only pre-selected: the app asks for it on the approval
            // (client/actions/deep_link.ts), after the PIN when locked.
            pendingLink.value = a.url ?? push.url;
          }}
        >
          {ACTION_LABEL[a.action] ? t(ACTION_LABEL[a.action]) : a.title}
        </button>
      ))}
    </div>
  );
}

/**
 * spec §2 push message banner: a push that arrives while the app is on screen shows here
 * (title and body) instead of as a system notification; tapping it opens the item (after the
 * PIN when the app is locked), × dismisses it. Its buttons are the system notification's: a
 * purchase's "Add receipt" opens the transaction with the camera ready, an approval's "Approve"
 * and "Reject" open it with that decision pre-selected, to confirm there. At the top, where
 * phones show notifications; the error banners keep the bottom. Announced when it appears,
 * like the error banners.
 */
export default function PushBannerView() {
  useSignals();
  const push = inAppPush.value;
  if (!push) return null;
  return (
    <div style={REGION} role="alert" aria-label={t("pushui.region")}>
      <div key={push.id} className="push-banner" style={CARD}>
        <button
          type="button"
          className="push-banner-open"
          style={OPEN}
          onClick={() => {
            dismissInAppPush();
            pendingLink.value = push.url;
          }}
        >
          <strong style={LINE}>{push.title}</strong>
          {push.body ? <span style={LINE}>{push.body}</span> : null}
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t("pushui.dismiss", { title: push.title })}
          onClick={dismissInAppPush}
        >
          ×
        </button>
        <Actions push={push} />
      </div>
    </div>
  );
}
