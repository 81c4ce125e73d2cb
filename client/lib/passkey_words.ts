/**
 * The passkey switch's and button's wording where the platform is known (spec §4's passkey
 * unlock): Face ID / Touch ID on Apple devices, Windows Hello on Windows, else fingerprint or
 * face.
 */
export function passkeyLabelKey(
  ua = typeof navigator === "undefined" ? "" : navigator.userAgent,
): "passkey.useApple" | "passkey.useWindows" | "passkey.use" {
  if (/iPhone|iPad|Macintosh/.test(ua)) return "passkey.useApple";
  if (/Windows/.test(ua)) return "passkey.useWindows";
  return "passkey.use";
}
