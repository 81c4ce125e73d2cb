/**
 * Passkey unlock (spec §4 PIN unlock, extended; spec §9 failure limit): a device may register
 * one WebAuthn passkey, verified here with @simplewebauthn/server, as a second way to unlock
 * besides its PIN. The passkey is bound to the device (and so to its user): registration needs
 * that device's bearer, an unlock presents the device id and that device's own credential. An
 * unlock is counted before it is evaluated on the device's one failure count
 * (pin_check.ts countedAttempt: same limit, same wipe rule as PIN failures) and, verified,
 * rotates the token as a PIN unlock does. Challenges are server-side, single-use and expire
 * after {@link CHALLENGE_TTL_MS}. The passkey goes with the device (unregistration, five
 * failures) or when the user switches it off.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import type * as z from "zod/mini";
import type {
  AuthenticationResponse,
  CreationOptions,
  RegistrationResponse,
  RequestOptions,
} from "../../client/shared/contract/passkey.ts";
import type { Deps } from "./env.ts";
import { badRequest, forbidden, HttpError, notFound } from "../errors.ts";
import type { Device } from "../store/devices.ts";
import { countedAttempt } from "./pin_check.ts";
import { base64url } from "../secrets.ts";
import { COSE_ALGORITHMS, type CoseAlgorithmName } from "../../client/shared/webauthn_limits.ts";

/** How long a challenge is honoured: the browser's own timeout plus a margin. */
export const CHALLENGE_TTL_MS = 2 * 60_000;
/** What the browser is told to wait for the person (WebAuthn `timeout`). */
const PROMPT_TIMEOUT_MS = 60_000;

/** The relying party: the app's public origin (PUBLIC_URL) and its host name. */
export function relyingParty(deps: Deps): { origin: string; rpID: string } {
  const u = new URL(deps.config.PUBLIC_URL);
  return { origin: u.origin, rpID: u.hostname };
}

const retry = () => new HttpError(409, "conflict", "The record changed meanwhile, please retry");

const verifiable = new Map<string, Promise<boolean>>();
/** Whether this runtime's WebCrypto verifies `name` (ML-DSA needs Deno ≥ 2.6; Deploy runs 2.5). */
export function runtimeVerifies(name: CoseAlgorithmName): Promise<boolean> {
  if (!name.startsWith("ML-DSA")) return Promise.resolve(true);
  let p = verifiable.get(name);
  if (!p) {
    p = crypto.subtle.generateKey({ name } as Algorithm, false, ["sign", "verify"])
      .then(() => true, () => false);
    verifiable.set(name, p);
  }
  return p;
}

/**
 * The COSE ids offered to a new passkey, most preferred first: PASSKEY_ALGORITHMS, less what
 * this runtime cannot verify. Only algorithms with a bound in client/shared/webauthn_limits.ts
 * (and a test of the whole path, tests/server/passkey_algorithms_test.ts) can be named.
 */
export async function offeredAlgorithms(deps: Deps): Promise<number[]> {
  const out: number[] = [];
  for (const name of deps.config.PASSKEY_ALGORITHMS) {
    if (await runtimeVerifies(name)) out.push(COSE_ALGORITHMS[name].id);
  }
  return out;
}

/** A string field (origin, challenge) of a response's clientDataJSON; null when unreadable. */
function clientData(clientDataJSON: string, field: "origin" | "challenge"): string | null {
  try {
    const o = JSON.parse(new TextDecoder().decode(fromBase64url(clientDataJSON)))?.[field];
    return typeof o === "string" ? o : null;
  } catch {
    return null;
  }
}

/**
 * A page opened at another origin than PUBLIC_URL's can never use the passkey it makes: a
 * set-up fault, named (in the answer and, through its code, in the request log) instead of
 * being a "try again".
 */
function checkOrigin(deps: Deps, clientDataJSON: string): void {
  const { origin } = relyingParty(deps);
  const seen = clientData(clientDataJSON, "origin");
  if (seen !== null && seen !== origin) {
    throw badRequest(
      "origin_mismatch",
      `This page is open at ${seen}, but passkeys are bound to ${origin} (PUBLIC_URL): open ` +
        `QCard at ${origin}, or set PUBLIC_URL to ${seen}`,
      { expected: origin, seen },
    );
  }
}

/** Registration options for `device` (bearer-authenticated), with a new one-time challenge. */
export async function registrationOptions(
  deps: Deps,
  device: Device,
  user: { email: string; fname: string; lname: string },
): Promise<z.infer<typeof CreationOptions>> {
  const { rpID } = relyingParty(deps);
  const userID = new Uint8Array(
    await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(`qcard-device:${device.deviceId}`),
    ),
  );
  const options = await generateRegistrationOptions({
    rpName: "QCard",
    rpID,
    userName: user.email,
    userDisplayName: `${user.fname} ${user.lname}`.trim() || user.email,
    // One passkey per device: re-registering on the same authenticator replaces its credential.
    userID,
    attestationType: "none",
    authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
    timeout: PROMPT_TIMEOUT_MS,
    supportedAlgorithmIDs: await offeredAlgorithms(deps),
  });
  await deps.store.challenges.issue(
    device.deviceId,
    "register",
    options.challenge,
    deps.now(),
    CHALLENGE_TTL_MS,
  );
  return options as z.infer<typeof CreationOptions>;
}

/** Verifies a registration against this device's challenge and stores the passkey. */
export async function register(
  deps: Deps,
  deviceId: string,
  response: z.infer<typeof RegistrationResponse>,
): Promise<void> {
  const { store } = deps;
  const challenge = await store.challenges.take(deviceId, "register", deps.now());
  if (!challenge) throw badRequest("invalid_passkey", "No registration is under way: start again");
  checkOrigin(deps, response.response.clientDataJSON);
  const { origin, rpID } = relyingParty(deps);
  let info;
  try {
    const v = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
      supportedAlgorithmIDs: await offeredAlgorithms(deps),
    });
    if (!v.verified) throw new Error("not verified");
    info = v.registrationInfo;
  } catch {
    throw badRequest("invalid_passkey", "The passkey could not be verified");
  }
  for (let i = 0; i < 10; i++) {
    const entry = await store.devices.get(deviceId);
    const d = entry.value;
    if (!d || d.status !== "active") {
      throw forbidden("unregistered", "This device is not registered");
    }
    const next: Device = {
      ...d,
      passkey: {
        id: info.credential.id,
        publicKey: base64url(info.credential.publicKey),
        counter: info.credential.counter,
        transports: info.credential.transports,
        createdAt: deps.now(),
      },
    };
    if ((await store.devices.put(store.kv.atomic().check(entry), next).commit()).ok) return;
  }
  throw retry();
}

/** Switching passkey unlock off: the device's passkey is forgotten. */
export async function removePasskey(deps: Deps, deviceId: string): Promise<void> {
  const { store } = deps;
  for (let i = 0; i < 10; i++) {
    const entry = await store.devices.get(deviceId);
    const d = entry.value;
    if (!d?.passkey) return;
    const next: Device = { ...d };
    delete next.passkey;
    if ((await store.devices.put(store.kv.atomic().check(entry), next).commit()).ok) return;
  }
  throw retry();
}

/** Assertion options for this device's own passkey, with a new one-time challenge. */
export async function unlockOptions(
  deps: Deps,
  deviceId: string,
): Promise<z.infer<typeof RequestOptions>> {
  const d = (await deps.store.devices.get(deviceId)).value;
  if (!d || d.status !== "active") throw forbidden("unregistered", "This device is not registered");
  if (!d.passkey) throw notFound("This device has no passkey");
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(deps).rpID,
    allowCredentials: [{ id: d.passkey.id, transports: d.passkey.transports }],
    userVerification: "required",
    timeout: PROMPT_TIMEOUT_MS,
  });
  await deps.store.challenges.issue(
    deviceId,
    "unlock",
    options.challenge,
    deps.now(),
    CHALLENGE_TTL_MS,
  );
  return options as z.infer<typeof RequestOptions>;
}

/**
 * A passkey unlock. The device's one-time challenge is taken first: an assertion signed for
 * another challenge than the outstanding one, or whose challenge is gone (a double-submit, a
 * replayed copy, a prompt answered after it expired or after a newer prompt), is stale and
 * refused without counting, since it was never a guess; each challenge admits at most one
 * evaluation, which is counted before it runs (pin_check.ts countedAttempt). No assertion at all
 * (the browser's user verification failed) takes the outstanding challenge and is counted. The assertion
 * is then verified against this device's passkey (another credential, another device's, a
 * stale counter or no user verification all fail), with one of the device's tokens. Success
 * rotates the token (the answer carries the new one) and moves the passkey's counter forward,
 * only if that same passkey is still there: one switched off or replaced meanwhile stays so.
 */
export async function passkeyUnlock(
  deps: Deps,
  deviceId: string,
  token: string,
  response: z.infer<typeof AuthenticationResponse> | null,
): Promise<{ token: string }> {
  const signedFor = response ? clientData(response.response.clientDataJSON, "challenge") : null;
  const challenge = await deps.store.challenges.take(
    deviceId,
    "unlock",
    deps.now(),
    signedFor ?? undefined,
  );
  if (!challenge) {
    const d = (await deps.store.devices.get(deviceId)).value;
    if (!d || d.status !== "active") {
      throw forbidden("unregistered", "This device is not registered");
    }
    throw new HttpError(
      409,
      "stale_challenge",
      "This passkey prompt was already answered or has expired: not counted, try again",
    );
  }
  return await countedAttempt(deps, deviceId, token, "passkey", async (d, which) => {
    const pk = d.passkey;
    if (!pk || !response || !which || response.id !== pk.id) return null;
    const { origin, rpID } = relyingParty(deps);
    try {
      const v = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential: {
          id: pk.id,
          publicKey: fromBase64url(pk.publicKey),
          counter: pk.counter,
          transports: pk.transports as never,
        },
        requireUserVerification: true,
      });
      if (!v.verified) return null;
      const counter = v.authenticationInfo.newCounter;
      // Applied to the device as the rotation re-reads it (a checked write).
      return (now: Device): Partial<Device> =>
        now.passkey?.id === pk.id && now.passkey.createdAt === pk.createdAt
          ? { passkey: { ...now.passkey, counter: Math.max(now.passkey.counter, counter) } }
          : {};
    } catch {
      return null; // malformed, wrong signature, counter gone back, no user verification…
    }
  });
}

function fromBase64url(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
