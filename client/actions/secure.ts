import { cards as api } from "../shared/contract/cards.ts";
import { call } from "../api/http.ts";
import { t } from "../i18n/index.ts";
import { PASSWORD_REVEAL_MS } from "../lib/cards.ts";
import { newRevealKey, openWithKey } from "../shared/reveal_cipher.ts";
import type { SecureInput } from "../shared/secure_rules.ts";
import { detail } from "../state/requests.ts";
import { askConfirm, openSheet, pushBanner } from "../state/ui.ts";
import { revealedPassword, secureSettings } from "../state/wallet.ts";
import { busy } from "./busy.ts";
import { generateCard } from "./cards.ts";
import { messageOf } from "./messages.ts";

// 3-D Secure settings (spec §2 Secure side panel, §4 Secure panel flow, §5, §8, §9): save, the
// requirePin step with the 4-digit PIN sent by text or email, the 'saved' confirm, and the
// stored password shown for 10 s.

/** spec §2 main menu '3D secure settings' and the request detail's 'Set 3D secure'. */
export function openSecure(generateFor?: string): void {
  openSheet({ kind: "secure", generateFor });
}

/** Reads the settings when the panel opens (the password comes back as a placeholder). */
export async function loadSecure(): Promise<void> {
  secureSettings.value = null;
  try {
    secureSettings.value = (await call(api.secure)).secure;
  } catch (err) {
    pushBanner(messageOf(err));
  }
}

/**
 * spec §4: the form is saved first. "pin": the server sent a PIN that must be entered;
 * "saved": nothing needed proof; "failed": said in an alert (spec §8 'Something went wrong').
 */
export async function saveSecure(input: SecureInput): Promise<"pin" | "saved" | "failed"> {
  const r = await busy(async () => {
    try {
      const a = await call(api.setSecure, { body: { record: input } });
      secureSettings.value = a.secure;
      return a.requirePin ? "pin" as const : "saved" as const;
    } catch (err) {
      // spec §8 secure update failure: the alert 'Something went wrong' (with why), and the
      // loading ends (busy() is over when it shows).
      askConfirm({
        message: t("common.somethingWrong"),
        extra: messageOf(err),
        showNo: false,
        yesLabel: t("common.ok"),
        onYes: () => {},
      });
      return "failed" as const;
    }
  });
  return r ?? "failed";
}

/** spec §4: the PIN; null when the call failed (said in a banner). */
export async function submitSecurePin(
  pin: string,
): Promise<{ pinOk: boolean; attemptsLeft: number } | null> {
  const r = await busy(async () => {
    try {
      return await call(api.validateSecurePin, { body: { pin } });
    } catch (err) {
      pushBanner(messageOf(err));
      return null;
    }
  });
  return r ?? null;
}

/**
 * spec §4: pinOk (or a save that needed none) → the panel closes and a 'saved' confirm
 * shows; a card waiting for 3-D Secure is then generated.
 */
export function secureSaved(close: () => void, generateFor?: string): void {
  close();
  revealedPassword.value = null;
  // The request on screen learns it at once (its Generate card no longer detours).
  const d = detail.value;
  if (d?.entity && !d.entity.is3DSecureDefined) {
    detail.value = { ...d, entity: { ...d.entity, is3DSecureDefined: true } };
  }
  askConfirm({
    message: t("secure.saved"),
    extra: generateFor ? t("secure.savedGenerate") : undefined,
    showNo: false,
    yesLabel: t("common.ok"),
    onYes: generateFor ? () => generateCard(generateFor) : () => {},
  });
}

let hideTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * spec §7 pwareveal3ds: the stored password, sealed for a fresh one-time key and opened on
 * the device; shown 10 s (spec §9), memory only.
 */
export async function revealSecurePassword(): Promise<void> {
  await busy(async () => {
    try {
      const key = newRevealKey();
      const r = await call(api.reveal3ds, { query: { key } });
      const password = await openWithKey(key, r.decryptpwd);
      const shown = { password, until: Date.now() + PASSWORD_REVEAL_MS };
      revealedPassword.value = shown;
      clearTimeout(hideTimer);
      hideTimer = setTimeout(() => {
        if (revealedPassword.value === shown) revealedPassword.value = null;
      }, PASSWORD_REVEAL_MS);
    } catch (err) {
      pushBanner(messageOf(err));
    }
  });
}

export function hideSecurePassword(): void {
  clearTimeout(hideTimer);
  revealedPassword.value = null;
}
