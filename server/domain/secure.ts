import type { SecureSettings } from "../../client/shared/contract/cards.ts";
import {
  checkSecure,
  PASSWORD_PLACEHOLDER,
  PASSWORD_SYMBOLS,
  type SecureInput,
  validSecurePin,
} from "../../client/shared/secure_rules.ts";
import { sealForKey } from "../../client/shared/reveal_cipher.ts";
import { forbidden, HttpError, unprocessable } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import type { SecureRecord } from "../store/secure.ts";
import type { User } from "../store/users.ts";
import { base64url, sha256, timingSafeEqual } from "../secrets.ts";

// 3-D Secure settings (spec §2 Secure side panel, §3, §4 Secure panel flow, §5, §9): a password
// the card holder answers when a merchant asks for a challenge, and the phone that receives
// its codes. The password is held by the issuer (encrypted in its vault); a change of phone
// or password waits for a 4-digit PIN sent by SMS (or email) and valid 5 minutes.

/** spec §9: the PIN email is valid 5 minutes. */
export const SECURE_PIN_TTL_MS = 5 * 60_000;
/** Tries at one PIN before the change must be saved again (counted before evaluation). */
export const SECURE_PIN_TRIES = 3;

const RETRIES = 8;

/** What the panel reads: never the password, a placeholder when one is set. */
export function toSettings(rec: SecureRecord | null, now: number): SecureSettings {
  return {
    password: rec?.defined ? PASSWORD_PLACEHOLDER : "",
    countryPrefix: rec?.countryPrefix ?? "",
    phoneNumber: rec?.phoneNumber ?? "",
    requirePin: !!rec?.pending && rec.pending.expiresAt > now,
    defined: !!rec?.defined,
  };
}

export async function readSecure(deps: Deps, user: User): Promise<SecureSettings> {
  return toSettings((await deps.store.secure.get(user.oid)).value, deps.now());
}

/** A 4-digit PIN from a secure source, without modulo bias. */
function newPin(): string {
  const b = new Uint16Array(1);
  for (;;) {
    crypto.getRandomValues(b);
    if (b[0] < 60_000) return String(b[0] % 10_000).padStart(4, "0");
  }
}

/**
 * spec §7 pwasetexpensedosecure: saves the settings. A first definition, a new password or a
 * new phone answers requirePin: the change waits, with a PIN sent to the new phone by SMS
 * (by email when no SMS transport is configured) in the same atomic write.
 */
export async function saveSecure(
  deps: Deps,
  user: User,
  input: SecureInput,
): Promise<{ requirePin: boolean; secure: SecureSettings }> {
  const tr = await translate(user.locale);
  const { secure, kv } = deps.store;
  for (let i = 0; i < RETRIES; i++) {
    const entry = await secure.get(user.oid);
    const cur = entry.value;
    const original = cur?.defined ? PASSWORD_PLACEHOLDER : null;
    const problems = checkSecure(input, original);
    if (problems.length) {
      const key = `secure.bad.${problems[0]}` as const;
      throw unprocessable(`secure_${problems[0]}`, tr(key, { symbols: PASSWORD_SYMBOLS }));
    }
    const prefix = input.countryPrefix.startsWith("+")
      ? input.countryPrefix
      : `+${input.countryPrefix}`;
    const passwordChanged = input.password !== PASSWORD_PLACEHOLDER;
    const phoneChanged = !cur || cur.countryPrefix !== prefix ||
      cur.phoneNumber !== input.phoneNumber;
    const now = deps.now();
    if (cur?.defined && !passwordChanged && !phoneChanged) {
      // Nothing that needs proof changed (a pending change, if any, is dropped).
      const next: SecureRecord = { ...cur, pending: undefined, updatedAt: now };
      if ((await secure.put(kv.atomic().check(entry), next).commit()).ok) {
        return { requirePin: false, secure: toSettings(next, now) };
      }
      continue;
    }
    if (!(await deps.store.rateLimits.hit("secure-pin", user.oid, 10, 3_600_000))) {
      throw new HttpError(429, "rate_limited", tr("activation.tooMany"));
    }
    const pin = newPin();
    const salt = base64url(crypto.getRandomValues(new Uint8Array(16)));
    const expiresAt = now + SECURE_PIN_TTL_MS;
    if (passwordChanged) await deps.issuer.setThreeDSPassword(user.oid, input.password, "pending");
    const next: SecureRecord = {
      userOid: user.oid,
      countryPrefix: cur?.countryPrefix ?? prefix,
      phoneNumber: cur?.phoneNumber ?? input.phoneNumber,
      defined: cur?.defined ?? false,
      pending: {
        countryPrefix: prefix,
        phoneNumber: input.phoneNumber,
        passwordChanged,
        pinHash: await sha256(`${salt}|${pin}`),
        salt,
        expiresAt,
        tries: 0,
      },
      updatedAt: now,
    };
    const op = kv.atomic().check(entry);
    secure.put(op, next);
    const text = tr("secure.pinText", { pin, minutes: SECURE_PIN_TTL_MS / 60_000 });
    deps.messages.add(
      op,
      deps.sms.kind !== "none"
        ? {
          channel: "sms",
          purpose: "3ds-pin",
          to: `${prefix}${input.phoneNumber}`,
          text,
          expiresAt,
          replaceKey: `3ds-pin:${user.oid}`,
        }
        : {
          channel: "email",
          purpose: "3ds-pin",
          to: user.email,
          subject: tr("secure.pinSubject"),
          text,
          expiresAt,
          replaceKey: `3ds-pin:${user.oid}`,
        },
    );
    if ((await op.commit()).ok) {
      await deps.events.publish({ type: "secure.pin_sent", userOid: user.oid });
      return { requirePin: true, secure: toSettings(next, now) };
    }
  }
  throw new HttpError(409, "conflict", tr("request.busy"));
}

/**
 * spec §7 pwaexpensedosecurevalidatepin: the PIN of the pending change. Each try is counted
 * (committed) before the PIN is compared; the third wrong try, or a PIN past its 5 minutes,
 * drops the change, which must then be saved again.
 */
export async function validateSecurePin(
  deps: Deps,
  user: User,
  pin: string,
): Promise<{ pinOk: boolean; attemptsLeft: number }> {
  const { secure, kv } = deps.store;
  for (let i = 0; i < RETRIES * 4; i++) {
    const entry = await secure.get(user.oid);
    const cur = entry.value;
    const p = cur?.pending;
    if (!cur || !p) return { pinOk: false, attemptsLeft: 0 };
    const now = deps.now();
    if (p.expiresAt <= now || p.tries >= SECURE_PIN_TRIES) {
      await secure.put(kv.atomic().check(entry), { ...cur, pending: undefined, updatedAt: now })
        .commit();
      return { pinOk: false, attemptsLeft: 0 };
    }
    const counted: SecureRecord = { ...cur, pending: { ...p, tries: p.tries + 1 } };
    const r = await secure.put(kv.atomic().check(entry), counted).commit();
    if (!r.ok) continue;
    const right = validSecurePin(pin) &&
      timingSafeEqual(await sha256(`${p.salt}|${pin}`), p.pinHash);
    const left = SECURE_PIN_TRIES - counted.pending!.tries;
    if (!right) {
      if (left <= 0) {
        const now2 = await secure.get(user.oid);
        if (now2.value?.pending?.pinHash === p.pinHash) {
          await secure.put(kv.atomic().check(now2), {
            ...now2.value,
            pending: undefined,
            updatedAt: deps.now(),
          }).commit();
        }
      }
      return { pinOk: false, attemptsLeft: Math.max(0, left) };
    }
    // Right: the change takes effect (the issuer's pending password becomes the current one).
    const applied: SecureRecord = {
      userOid: user.oid,
      countryPrefix: p.countryPrefix,
      phoneNumber: p.phoneNumber,
      defined: cur.defined || p.passwordChanged,
      updatedAt: now,
    };
    const current = await secure.get(user.oid);
    if (current.value?.pending?.pinHash !== p.pinHash) continue;
    if (p.passwordChanged) await deps.issuer.promoteThreeDSPassword(user.oid);
    if ((await secure.put(kv.atomic().check(current), applied).commit()).ok) {
      await deps.events.publish({ type: "secure.saved", userOid: user.oid });
      return { pinOk: true, attemptsLeft: SECURE_PIN_TRIES };
    }
  }
  throw new HttpError(409, "conflict", "Please retry");
}

/** spec §7 pwareveal3ds: the stored password, sealed for the device's key (shown 10 s). */
export async function revealSecurePassword(deps: Deps, user: User, key: string): Promise<string> {
  const tr = await translate(user.locale);
  const rec = (await deps.store.secure.get(user.oid)).value;
  const password = rec?.defined ? await deps.issuer.revealThreeDSPassword(user.oid) : null;
  if (!password) throw forbidden("secure_not_defined", tr("card.secureRequired"));
  if (!(await deps.store.rateLimits.hit("reveal3ds", user.oid, 30, 3_600_000))) {
    throw new HttpError(429, "rate_limited", tr("activation.tooMany"));
  }
  return await sealForKey(key, password);
}
