import { sessionCalls as session } from "../api/session_calls.ts";
import { ApiError, call, credentials, NetworkError } from "../api/http.ts";
import { WrongKeyError } from "../crypto/device_key.ts";
import { applyTranslation, t } from "../i18n/index.ts";
import { cachedTranslation, cacheTranslation, preferredLanguage } from "../i18n/language.ts";
import { rememberedSupportUrl, rememberSupportUrl } from "../i18n/support_link.ts";
import { checkPin } from "../shared/pin_rules.ts";
import { afterTask, whenIdle } from "../lib/tasks.ts";
import {
  appConfig,
  padMessage,
  phase,
  pinConfirming,
  pinLength,
  profile,
  shakeCount,
  supportUrl,
} from "../state/session.ts";
import { askConfirm, panel } from "../state/ui.ts";
import { busy } from "./busy.ts";
import { messageOf } from "./messages.ts";
import { cookiePinLength } from "./token_cookie.ts";

/**
 * The device's keeping (QCDB, WebCrypto: client/actions/device.ts) and the lists
 * (client/actions/lists.ts) are chunks of their own, fetched by start-up after the first render:
 * typing on the first screen needs neither (the PIN pad's first load and its
 * evaluation). Once in, they are kept here for what must run at once (logout locks now).
 */
type Device = typeof import("./device.ts");
type Lists = typeof import("./lists.ts");
let loadedDevice: Device | null = null;
let loadedLists: Lists | null = null;
const device = async (): Promise<Device> => (loadedDevice ??= await import("./device.ts"));
const lists = async (): Promise<Lists> => {
  if (loadedLists) return loadedLists;
  const m = await import("./lists.ts");
  // The lists are the calls that meet a refused token first (spec §8).
  m.onListsRefused(refused);
  return (loadedLists = m);
};
/** The device id, made once per installation (client/actions/device.ts). */
const ensureDeviceId = async (): Promise<string> => (await device()).ensureDeviceId();

/** spec §4/§9: five wrong PINs wipe the device. */
export const MAX_PIN_FAILURES = 5;
/** The code being activated: needed again to confirm the PIN (spec §7 pwaconfirmpin). */
let pendingCode: string | null = null;

function fail(message: string): void {
  padMessage.value = message;
  shakeCount.value++;
}

/**
 * The first screen, before the first render: the one the cookies choose (spec §4), in the
 * kept translation. It is the screen the shell already shows (build.ts renders it into
 * index.html), so the first render takes its elements over. Without the cookies, {@link boot}
 * still asks QCDB.
 */
export function firstScreen(): void {
  const cached = cachedTranslation(preferredLanguage());
  if (cached) applyTranslation(cached.translation, cached.locale);
  const len = cookiePinLength();
  pinLength.value = len ?? 6;
  phase.value = len ? "unlock" : "activate";
}

/** Start-up: device id, server settings and translation, then the §4 start state. */
export async function boot(): Promise<void> {
  if (phase.value === "boot") firstScreen();
  // The first screen depends on cookies when they say the device is activated: shown before
  // QCDB is opened (a first visit's database creation is what the PIN pad's first paint
  // waited for). Without them QCDB decides, if it exists: a browser killed within ~30 s of
  // the activation comes back without its cookies (spec §4).
  const d = await device();
  const len = d.storedPinLength() ?? await d.durablePinLength();
  if (len && phase.value === "activate") {
    pinLength.value = len;
    phase.value = "unlock";
  }
  await d.ensureDeviceId();
  await Promise.allSettled([loadInitialize(), loadTranslation()]);
}

async function loadInitialize(): Promise<void> {
  try {
    const r = await call(session.initialize, { query: {} });
    appConfig.value = r;
  } catch { /* offline: help links stay hidden */ }
}

/**
 * spec §7 pwatranslation in the person's language (client/i18n/language.ts); signed in, the
 * server records it as the user's. False when it could not be fetched.
 */
export async function loadTranslation(): Promise<boolean> {
  try {
    const r = await afterTask(
      await call(session.translation, {
        query: { entity: "expense", locale: preferredLanguage() },
      }),
    );
    // Applied (every screen renders again) in a task after the one that parsed it, and kept
    // for the next start (a synchronous write of the whole dictionary) when the app is idle.
    applyTranslation(r.translation, r.locale);
    whenIdle(() => cacheTranslation(r));
    return true;
  } catch {
    return false; // keep what we have
  }
}

/** needsValidating: 5 digits → 'connect device' (spec §4). */
export async function connectDevice(code: string): Promise<void> {
  await ensureDeviceId();
  await busy(async () => {
    try {
      await call(session.checkValidation, {
        body: { verificationcode: code },
        headers: { screenW: String(screen.width), screenH: String(screen.height) },
      });
      pendingCode = code;
      padMessage.value = null;
      restartPin();
      phase.value = "definePin";
    } catch (err) {
      // spec §8: invalid activation code → the dialog shakes.
      fail(
        !(err instanceof ApiError)
          ? messageOf(err)
          : err.code === "code_resent"
          ? t("activation.codeResent")
          : err.code === "code_sent_if_right"
          ? t("activation.codeSentIfRight")
          : err.code === "code_throttled"
          ? t("activation.throttled")
          : err.status === 429
          ? t("activation.tooMany")
          : t("activation.invalidCode"),
      );
    }
  });
}

/** The new PIN's first entry, until it is confirmed (held in memory only, dropped once used). */
let chosenPin: string | null = null;

/** Back to choosing the new PIN (the confirm step's "choose another PIN"). */
export function restartPin(): void {
  chosenPin = null;
  padMessage.value = null;
  pinConfirming.value = false;
}

/**
 * The new PIN is asked twice: the first entry is checked against the §5 rules, then the
 * same PIN is asked again; a different one says so and asks for the confirmation again.
 */
export async function savePin(pin: string): Promise<void> {
  const problem = checkPin(pin);
  if (problem) return fail(t(problem === "sequence" ? "pin.sequence" : "pin.repetition"));
  if (!pinConfirming.value) {
    chosenPin = pin;
    padMessage.value = null;
    pinConfirming.value = true;
    return;
  }
  if (pin !== chosenPin) return fail(t("pin.differ"));
  if (!pendingCode) {
    phase.value = "activate";
    return;
  }
  await busy(async () => {
    try {
      const r = await call(session.confirmPin, { body: { verificationcode: pendingCode!, pin } });
      await (await device()).storeToken(r.token, pin);
      pendingCode = null;
      chosenPin = null;
      padMessage.value = null;
      pinLength.value = pin.length;
      await enterMain();
    } catch (err) {
      if (err instanceof ApiError && err.code === "invalid_code") {
        pendingCode = null;
        chosenPin = null;
        phase.value = "activate";
      }
      fail(messageOf(err));
    }
  });
}

/**
 * PIN unlock: derive the key, open the sealed token, and let the server check the PIN
 * (it counts failures too). Offline, a PIN that opens the token unlocks on cached data.
 */
export async function unlock(pin: string): Promise<void> {
  const { adoptSession, openToken, replaceToken, resetPinFailures, storedSealed } = await device();
  await ensureDeviceId();
  await busy(async () => {
    const sealed = await storedSealed();
    if (!sealed) {
      await wipeAndRestart(t("pin.unregistered"));
      return;
    }
    let opened: Awaited<ReturnType<typeof openToken>> | null = null;
    try {
      opened = await openToken(pin, sealed);
    } catch (err) {
      if (!(err instanceof WrongKeyError)) throw err;
    }
    let token = opened?.token;
    let key = opened?.key;
    try {
      const r = await call(session.checkPinValid, { body: { token: opened?.token ?? "", pin } });
      // A rotated token replaces the sealed one (offline unlocks keep the current one).
      if (opened && r.token) {
        key = await replaceToken(r.token, opened.key, sealed);
        token = r.token;
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === "unregistered") {
        return await wipeAndRestart(t(opened ? "pin.unregistered" : "pin.wiped"));
      }
      if (!(err instanceof NetworkError) || !opened) return await wrongPin();
    }
    if (!opened || !token || !key) return await wrongPin();
    // A device sealed before data keys moves to them at this PIN unlock, even offline.
    if (sealed.v === 1 && key === opened.key) key = await replaceToken(token, key, sealed);
    resetPinFailures();
    adoptSession(token, key, opened.unwrapper);
    padMessage.value = null;
    await enterMain();
  });
}

async function wrongPin(): Promise<void> {
  await failedUnlock((count) => t("pin.attemptsLeft", { count }));
}

/**
 * A failed unlock, by PIN or by passkey (client/actions/passkey.ts): both count on the one
 * failure count, and the fifth wipes the device (spec §4/§9).
 */
export async function failedUnlock(attemptsLeft: (count: number) => string): Promise<void> {
  const n = (await device()).countPinFailure();
  if (n >= MAX_PIN_FAILURES) return await wipeAndRestart(t("pin.wiped"));
  fail(attemptsLeft(MAX_PIN_FAILURES - n));
}

/**
 * The server refused this window's token. If another window unlocked meanwhile (it rotated
 * the token) this one just locks and asks for the PIN; otherwise the device was unregistered
 * and local data goes (spec §8).
 */
async function refused(): Promise<void> {
  if (!(await device()).unlockedElsewhere()) return await wipeAndRestart(t("pin.unregistered"));
  logout();
  padMessage.value = t("pin.unlockedElsewhere");
}

export async function wipeAndRestart(message: string): Promise<void> {
  const d = await device();
  await d.wipeLocalData();
  await d.ensureDeviceId();
  profile.value = null;
  loadedLists?.resetLists();
  pinLength.value = 6;
  phase.value = "activate";
  fail(message);
}

/** Unlocked: load the lists (cache first), check the registration, refresh the translation. */
export async function enterMain(): Promise<void> {
  phase.value = "main";
  // The lists beside pwalists are in the main screen's chunk (fetched while the PIN was typed):
  // registered with the change registry when it is in; the request lists do not wait for it.
  const models = import("./session_lists.ts").then((m) => m.sessionLists());
  await Promise.allSettled([
    lists().then((l) => l.openLists(models)),
    loadTranslation(),
    loadSupportUrl(),
    checkRegistered(),
  ]);
}

async function loadSupportUrl(): Promise<void> {
  try {
    supportUrl.value = (await call(session.supportUrl)).supporturl;
    rememberSupportUrl(supportUrl.value);
  } catch {
    // Offline: the last answer (our own page is precached); else the tab says there is none.
    supportUrl.value ??= rememberedSupportUrl();
  }
}

/** spec §7 pwacheckregistered: status OK, otherwise local data is cleared. */
async function checkRegistered(): Promise<void> {
  if (!credentials.bearer) return;
  try {
    const r = await call(session.checkRegistered, { body: { token: credentials.bearer } });
    if (r.status !== "OK") await refused();
  } catch { /* offline: keep working on cached data */ }
}

/** spec §2 main menu: logout locks the app; the PIN unlocks it again. */
export function logout(): void {
  // Unlocked means the device's chunk is in: the key and the token are dropped now.
  loadedDevice?.lock();
  profile.value = null;
  loadedLists?.resetLists();
  panel.value = null;
  padMessage.value = null;
  phase.value = (loadedDevice?.storedPinLength() ?? cookiePinLength()) ? "unlock" : "activate";
}

/** spec §2 options: 'remove local data' with a confirm; the server forgets the device too. */
export function confirmRemoveLocalData(): void {
  askConfirm({
    message: t("options.removeConfirm"),
    extra: t("options.removeExtra"),
    showNo: true,
    // The buttons say the verb (the removal in red) and what No means.
    yesLabel: t("options.removeYes"),
    noLabel: t("confirm.keep"),
    danger: true,
    onYes: async () => {
      if (credentials.bearer) {
        try {
          await call(session.unregister, { body: { token: credentials.bearer } });
        } catch (err) {
          console.warn("unregister failed", err);
        }
      }
      panel.value = null;
      await wipeAndRestart("");
      padMessage.value = null;
    },
  });
}

/** Lost activation, step 1: the email's secret question (spec §4, §8). */
export async function askQuestion(email: string) {
  await ensureDeviceId();
  return await busy(() => call(session.activationEmail, { body: { email } }));
}

/** Lost activation, step 2: the right answer mails a new code. */
export async function sendAnswer(email: string, answer: string, questOid: string) {
  await ensureDeviceId();
  return await busy(() => call(session.secretAnswer, { body: { email, answer, questOid } }));
}

export { messageOf };
