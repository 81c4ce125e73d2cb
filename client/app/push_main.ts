/**
 * Web push's part of the main screen's chunk (spec §1 push notifications), re-exported by
 * MainArea.tsx: the first load (PushBanner, PushToggle) reaches it through the same `import()` as
 * the main screen, already fetched while the PIN is typed, so push adds no chunk of its own and its
 * actions stay out of the PIN pad's first load.
 */
export { openLink } from "../actions/deep_link.ts";
export { refreshPush } from "../actions/push.ts";
export { default as PushSwitch } from "../screens/Options/PushSwitch.tsx";
export { default as PushBannerView } from "../components/PushBannerView.tsx";
