/**
 * Passkey unlock (spec §4 PIN unlock, extended): the passkey's WebAuthn PRF output, through
 * HKDF, wraps the same data key as the PIN (client/crypto/data_key.ts, passkey_wrap.ts). Its
 * own chunk: loaded on the unlock screen only when a passkey wrapper is stored, and in
 * Options. The PRF output lives in local variables of this module only: never stored, logged
 * or sent (the JSON sent to the server carries empty extension results).
 */
import { passkey } from "../shared/contract/passkey.ts";
import { ApiError, call, NetworkError } from "../api/http.ts";
import { wrongKey, WrongKeyError } from "../crypto/device_key.ts";
import {
  isPasskeyWrap,
  newPasskeyWrap,
  openPasskeyWrap,
  PRF_INPUT,
} from "../crypto/passkey_wrap.ts";
import { t } from "../i18n/index.ts";
import {
  assertionJson,
  creationOptions,
  prfEnabled,
  prfOutput,
  registrationJson,
  requestOptions,
} from "../lib/webauthn.ts";
import { passkeyOn, passkeyPrompting } from "../state/passkey.ts";
import { padMessage, phase } from "../state/session.ts";
import { busy } from "./busy.ts";
import {
  adoptSession,
  ensureDeviceId,
  replaceToken,
  resetPinFailures,
  storedSealed,
  unlockedThrough,
} from "./device.ts";
import { enterMain, failedUnlock, wipeAndRestart } from "./session.ts";
import { putPasskeyWrap } from "../db/passkey_store.ts";
import { getToken, type PasskeyWrap } from "../db/qcdb.ts";
import { openWithDataKey, unwrapDataKey } from "../crypto/data_key_ops.ts";

/** The passkey wrapper stored with the sealed token, if passkey unlock is on. */
async function storedPasskey(): Promise<PasskeyWrap | null> {
  try {
    const w = (await getToken())?.passkey;
    return isPasskeyWrap(w) ? w : null;
  } catch {
    return null;
  }
}

/** Stores (or with null removes) the passkey wrapper, durably. */
async function setPasskeyWrap(wrap: PasskeyWrap | null): Promise<boolean> {
  try {
    return await putPasskeyWrap(wrap);
  } catch {
    return false;
  }
}

let triedThisStart = false;
let controller: AbortController | null = null;

/**
 * Remembered (durably) when a passkey unlock failed: the next starts do not open the prompt by
 * themselves, each spending an attempt, until the passkey works again from its button.
 */
const FAILED = "qc_passkey_failed";

function lastFailed(): boolean {
  try {
    return localStorage.getItem(FAILED) === "1";
  } catch {
    return false;
  }
}

function markFailed(failed: boolean): void {
  try {
    if (failed) localStorage.setItem(FAILED, "1");
    else localStorage.removeItem(FAILED);
  } catch { /* storage disabled: the prompt may open by itself again */ }
}

/**
 * On the unlock screen with a passkey: the prompt opens by itself once per start of the app
 * (not again after a failure, a lock or a cancel: the PIN pad is there), and not at all after
 * the last passkey unlock failed: the PIN pad says so, and the button tries it again.
 */
export async function passkeyOnStart(): Promise<void> {
  if (triedThisStart) return;
  triedThisStart = true;
  if (lastFailed()) {
    if (!padMessage.value) padMessage.value = t("passkey.lastFailed");
    return;
  }
  await unlockByPasskey();
}

/** Opens the passkey prompt (the unlock screen's button, or once at start). */
export async function unlockByPasskey(): Promise<void> {
  controller?.abort();
  const mine = new AbortController();
  controller = mine;
  try {
    await unlockWithPasskey(mine.signal);
  } finally {
    if (controller === mine) controller = null;
  }
}

/** "Use PIN instead": closes the prompt; not a failed attempt. */
export function usePinInstead(): void {
  controller?.abort();
  controller = null;
  passkeyPrompting.value = false;
}

/** Remembered when an authenticator gave no PRF output: the switch is not offered again. */
const NO_PRF = "qc_passkey_noprf";

export type EnableResult =
  | "on"
  | "no_prf"
  | "cancelled"
  | "locked"
  | "failed"
  /** This page's origin is not the one passkeys are bound to (the server's PUBLIC_URL). */
  | { wrongOrigin: string };

/** Whether passkey unlock is on for this device (a wrapper is stored). */
export async function passkeyEnabled(): Promise<boolean> {
  return !!(await storedPasskey());
}

/** Whether an earlier try found that this device's passkeys give no PRF output. */
export function noPrfHere(): boolean {
  try {
    return localStorage.getItem(NO_PRF) === "1";
  } catch {
    return false;
  }
}

/**
 * Options' switch on (after an unlock): registers a passkey for this device (user
 * verification required, resident key preferred) asking for PRF, wraps the data key under
 * the PRF-derived key, has the server verify and keep the passkey, then stores the wrapper.
 * Without PRF output nothing is registered on the server and the switch says why.
 */
export async function enablePasskey(): Promise<EnableResult> {
  // An extractable copy of the unlocked data key, used once to wrap it and dropped.
  const via = unlockedThrough();
  if (!via) return "locked";
  const exportable = await unwrapDataKey(via.key, via.wrap, true);
  try {
    const { options } = await call(passkey.registerOptions);
    const cred = await navigator.credentials.create({
      publicKey: creationOptions(options, PRF_INPUT),
    }) as PublicKeyCredential | null;
    if (!cred) return "cancelled";
    let prf = prfOutput(cred);
    if (!prf && prfEnabled(cred)) {
      // Some authenticators give PRF output only when the passkey is used: use it once, here
      // (a local challenge: only the PRF output is wanted).
      const used = await navigator.credentials.get({
        publicKey: requestOptions(null, cred.id, PRF_INPUT),
      }) as PublicKeyCredential | null;
      prf = used ? prfOutput(used) : null;
    }
    if (!prf) {
      try {
        localStorage.setItem(NO_PRF, "1");
      } catch { /* storage disabled: the switch asks again next time */ }
      return "no_prf";
    }
    const wrap = await newPasskeyWrap(exportable, prf, cred.id);
    prf = null;
    await call(passkey.register, { body: { response: registrationJson(cred) } });
    if (!(await setPasskeyWrap(wrap))) {
      await call(passkey.remove).catch(() => {});
      return "failed";
    }
    passkeyOn.value = true;
    return "on";
  } catch (err) {
    if (
      err instanceof DOMException && (err.name === "NotAllowedError" || err.name === "AbortError")
    ) {
      return "cancelled";
    }
    if (err instanceof ApiError && err.code === "origin_mismatch") {
      const expected = err.body.expected;
      return { wrongOrigin: typeof expected === "string" ? expected : "" };
    }
    return "failed";
  }
}

/**
 * Options' switch off: the wrapper goes first (the passkey can no longer open anything here),
 * then the server forgets the passkey. The browser's credential stays: the user's to delete.
 */
export async function disablePasskey(): Promise<boolean> {
  await setPasskeyWrap(null);
  passkeyOn.value = false;
  try {
    await call(passkey.remove);
    return true;
  } catch {
    return false;
  }
}

/**
 * The unlock by passkey: the server's challenge (a local one offline), the browser's prompt
 * with PRF, the data key from the wrapper, the sealed token opened with it, and the server's
 * verification (counted like a PIN attempt; it rotates the token). A prompt that fails or is
 * refused counts as a failed attempt (the browser does not say which: WebAuthn's privacy
 * rules); one closed by "Use PIN instead" (`signal`) does not. Offline, a passkey that opens
 * the token unlocks on cached data, as a PIN does.
 */
export async function unlockWithPasskey(signal: AbortSignal): Promise<void> {
  const wrap = await storedPasskey();
  if (!isPasskeyWrap(wrap)) {
    passkeyOn.value = false;
    return;
  }
  await ensureDeviceId();
  let options = null;
  try {
    options = (await call(passkey.unlockOptions)).options;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      // The server no longer knows this passkey (switched off elsewhere): the PIN unlocks.
      await setPasskeyWrap(null);
      passkeyOn.value = false;
      return;
    }
    if (err instanceof ApiError && err.code === "unregistered") {
      return await wipeAndRestart(t("pin.unregistered"));
    }
    if (!(err instanceof NetworkError)) return;
  }
  if (signal.aborted || phase.value !== "unlock") return;
  let cred: PublicKeyCredential | null = null;
  passkeyPrompting.value = true;
  padMessage.value = null;
  try {
    cred = await navigator.credentials.get({
      publicKey: requestOptions(options, wrap.credentialId, PRF_INPUT),
      signal,
    }) as PublicKeyCredential | null;
  } catch (err) {
    if (signal.aborted || (err instanceof DOMException && err.name === "AbortError")) return;
  } finally {
    passkeyPrompting.value = false;
  }
  if (phase.value !== "unlock") return;
  await busy(() => finish(options !== null, cred, wrap));
}

const passkeyFailed = (count: number) => {
  markFailed(true);
  return t("passkey.attemptsLeft", { count });
};

/**
 * The server did not evaluate the assertion: a stale prompt (its one-time challenge already
 * answered or expired), a body it refused as malformed, or a server fault. Not an attempt: the
 * count stays, the PIN pad says so, and a malformed one is logged for whoever looks.
 */
function notEvaluated(err: ApiError): void {
  markFailed(true);
  if (err.status === 400) console.warn(`passkey unlock refused: ${err.code}: ${err.message}`);
  padMessage.value = t("passkey.notCounted");
}

/** Answers the server gives without evaluating (or counting) the assertion. */
const notCounted = (err: unknown): err is ApiError =>
  err instanceof ApiError &&
  (err.status === 400 || err.status >= 500 || err.code === "stale_challenge");

async function finish(
  online: boolean,
  cred: PublicKeyCredential | null,
  wrap: PasskeyWrap,
): Promise<void> {
  const sealed = await storedSealed();
  if (!sealed) return await wipeAndRestart(t("pin.unregistered"));
  let opened: { token: string; dataKey: CryptoKey; kek: CryptoKey } | null = null;
  const prf = cred ? prfOutput(cred) : null;
  if (prf) {
    try {
      const { dataKey, kek } = await openPasskeyWrap(wrap, prf);
      if (sealed.v !== 2) throw new TypeError("a passkey opens only a data-key sealed token");
      const token = await openWithDataKey(dataKey, sealed).catch(wrongKey);
      opened = { token, dataKey, kek };
    } catch (err) {
      if (!(err instanceof WrongKeyError) && !(err instanceof TypeError)) throw err;
    }
  }
  let token = opened?.token;
  let key = opened?.dataKey;
  if (online) {
    try {
      const r = await call(passkey.unlock, {
        body: { token: opened?.token ?? "", response: cred ? assertionJson(cred) : null },
      });
      if (opened) {
        key = await replaceToken(r.token, opened.dataKey, sealed);
        token = r.token;
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === "unregistered") {
        return await wipeAndRestart(t(opened ? "pin.unregistered" : "pin.wiped"));
      }
      if (notCounted(err) && !(opened && err.status >= 500)) return notEvaluated(err);
      if (!(err instanceof NetworkError || notCounted(err)) || !opened) {
        return await failedUnlock(passkeyFailed);
      }
    }
  }
  if (!opened || !token || !key) return await failedUnlock(passkeyFailed);
  markFailed(false);
  resetPinFailures();
  adoptSession(token, key, { key: opened.kek, wrap });
  padMessage.value = null;
  await enterMain();
}
