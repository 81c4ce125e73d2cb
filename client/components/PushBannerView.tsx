import type { CSSProperties } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { dismissInAppPush, inAppPush, pendingLink } from "../state/push.ts";

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

/**
 * spec §2 push message banner: a push that arrives while the app is on screen shows here
 * (title and body) instead of as a system notification; tapping it opens the item (after the
 * PIN when the app is locked), × dismisses it. At the top, where phones show notifications;
 * the error banners keep the bottom. Announced when it appears, like the error banners.
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
      </div>
    </div>
  );
}
