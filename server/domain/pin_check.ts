import type { Deps } from "./env.ts";
import { forbidden, HttpError } from "../errors.ts";
import { type Device, EARLIER_TOKEN_MS, keptTokens } from "../store/devices.ts";
import { newToken, sha256, verifySecret } from "../secrets.ts";

/** spec §9: five failed PIN attempts unregister the device. */
export const MAX_PIN_FAILURES = 5;
const DAY = 86_400_000;

/** Whether a device's token has gone unused past TOKEN_IDLE_DAYS. */
export function tokenIdle(deps: Deps, d: Device): boolean {
  const seen = d.lastSeenAt ?? d.activatedAt ?? d.createdAt;
  return deps.now() - seen > deps.config.TOKEN_IDLE_DAYS * DAY;
}

/** The presented token is the device's current one, or the one it just replaced. */
export async function tokenOf(d: Device, token: string): Promise<"current" | "previous" | null> {
  if (!token) return null;
  const h = await sha256(token);
  return h === d.tokenHash ? "current" : h === d.prevTokenHash ? "previous" : null;
}

/** When the device's current token was handed out. */
const issuedAt = (d: Device) => d.tokenIssuedAt ?? d.activatedAt ?? d.createdAt;

/**
 * For the PIN check only: also an earlier token of this very device (`oldTokens`, replaced
 * within EARLIER_TOKEN_MS of the current one's issue), which a browser killed before its
 * cookies reached the disk may still present.
 */
async function pinTokenOf(
  d: Device,
  token: string,
): Promise<"current" | "previous" | "older" | null> {
  const which = await tokenOf(d, token);
  if (which || !token) return which;
  const h = await sha256(token);
  const since = issuedAt(d) - EARLIER_TOKEN_MS;
  return d.oldTokens?.some((t) => t.hash === h && t.replacedAt >= since) ? "older" : null;
}

const pause = (i: number) => new Promise((r) => setTimeout(r, Math.random() * 4 * (i + 1)));
const busy = () => new HttpError(409, "conflict", "Please retry");

/**
 * spec §7 pwacheckpinvalid, counted before it is evaluated (engineering.md §5): each attempt first
 * commits pinFailures + 1 on the device's version, so N parallel guesses count N and at
 * most MAX_PIN_FAILURES are ever evaluated. The token is compared first (cheap) and the
 * PIN hash runs only when it is one of this device's, so without one every PIN, right or
 * wrong, gets the same counted 'wrong_pin'. A token the device held earlier (spec §4: the
 * browser may restart on an older copy of its sealed token) is treated like the current
 * one: with the right PIN it unlocks, with a wrong one it gets the same counted 'wrong_pin'
 * as the current or an unknown token would (no oracle). A success resets the count and
 * rotates the token: the answer carries the new one.
 */
export async function checkPinAttempt(
  deps: Deps,
  deviceId: string,
  token: string,
  pin: string,
): Promise<{ token: string }> {
  return await countedAttempt(deps, deviceId, token, "pin", async (d, which) => {
    return which && d.pin && (await verifySecret(pin, d.pin)) ? {} : null;
  });
}

/**
 * What a secret's check answers: null for a failure, else the changes to the device (beyond
 * the rotation) that the success brings (a passkey's new signature counter) — or a function
 * making them from the device as the rotation's checked write finds it, so nothing read
 * before the evaluation is written back over a change made meanwhile.
 */
export type Evaluation = Partial<Device> | ((now: Device) => Partial<Device>) | null;

/**
 * One attempt at a device secret (the PIN, or its passkey: server/domain/passkeys.ts), counted
 * before it is evaluated on the device's one failure count: both kinds share the limit and the
 * wipe rule (spec §9: five failures unregister the device). `evaluate` runs only after the
 * count is committed, with which of the device's tokens was presented (null: none).
 */
export async function countedAttempt(
  deps: Deps,
  deviceId: string,
  token: string,
  kind: "pin" | "passkey",
  evaluate: (d: Device, which: "current" | "previous" | "older" | null) => Promise<Evaluation>,
): Promise<{ token: string }> {
  const { store } = deps;
  const tooMany = kind === "pin"
    ? "Too many wrong PINs: the device was unregistered"
    : "Too many failed unlocks: the device was unregistered";
  for (let i = 0; i < 40; i++) {
    const entry = await store.devices.get(deviceId);
    const d = entry.value;
    if (!d || d.status !== "active" || !d.pin) {
      throw forbidden("unregistered", "This device is not registered");
    }
    if (d.pinFailures >= MAX_PIN_FAILURES || tokenIdle(deps, d)) {
      if (await unregister(deps, entry as Deno.KvEntry<Device>)) {
        throw forbidden("unregistered", tooMany);
      }
      continue;
    }
    const counted: Device = { ...d, pinFailures: d.pinFailures + 1 };
    const r = await store.devices.put(store.kv.atomic().check(entry), counted).commit();
    if (!r.ok) {
      await pause(i);
      continue;
    }
    const which = await pinTokenOf(d, token);
    const ok = await evaluate(d, which);
    if (which && ok) return await rotate(deps, deviceId, token, which, ok);
    if (counted.pinFailures >= MAX_PIN_FAILURES) {
      const now = await store.devices.get(deviceId);
      if (now.value && now.value.pinFailures >= MAX_PIN_FAILURES) {
        await unregister(deps, now as Deno.KvEntry<Device>);
      }
      throw forbidden("unregistered", tooMany);
    }
    if (kind === "passkey") {
      throw forbidden("wrong_passkey", "The passkey was not accepted", {
        attemptsLeft: MAX_PIN_FAILURES - counted.pinFailures,
      });
    }
    throw forbidden("wrong_pin", "Wrong PIN", {
      attemptsLeft: MAX_PIN_FAILURES - counted.pinFailures,
    });
  }
  throw busy();
}

/**
 * After a right PIN: failures back to 0 and a new token. The presented token stays honoured
 * (as `prevTokenHash`) until the new one is first used, in case this answer is lost — unless
 * it was an older one: that never becomes a bearer again (it stays in `oldTokens`, replaced
 * now, which answers a lost answer's retry just as well). The replaced hashes move to
 * `oldTokens` and leave the token index.
 */
async function rotate(
  deps: Deps,
  deviceId: string,
  presented: string,
  which: "current" | "previous" | "older",
  patch: NonNullable<Evaluation>,
): Promise<{ token: string }> {
  const { store } = deps;
  const token = newToken();
  const hash = await sha256(token);
  const presentedHash = await sha256(presented);
  const prev = which === "older" ? undefined : presentedHash;
  for (let i = 0; i < 40; i++) {
    const entry = await store.devices.get(deviceId);
    const d = entry.value;
    if (!d || d.status !== "active") {
      throw forbidden("unregistered", "This device is not registered");
    }
    const op = store.kv.atomic().check(entry);
    for (const old of [d.tokenHash, d.prevTokenHash]) {
      if (old && old !== prev) store.devices.forgetToken(op, old);
    }
    const now = deps.now();
    const next: Device = {
      ...d,
      ...(typeof patch === "function" ? patch(d) : patch),
      pinFailures: 0,
      tokenHash: hash,
      prevTokenHash: prev,
      tokenIssuedAt: now,
      oldTokens: keptTokens(
        [
          { hash: d.tokenHash, replacedAt: now },
          d.prevTokenHash ? { hash: d.prevTokenHash, replacedAt: issuedAt(d) } : null,
          prev ? null : { hash: presentedHash, replacedAt: now },
          ...(d.oldTokens ?? []),
        ],
        [prev],
        now - EARLIER_TOKEN_MS,
      ),
      lastSeenAt: now,
    };
    if (!prev) delete next.prevTokenHash;
    if ((await store.devices.put(op, next).commit()).ok) return { token };
    await pause(i);
  }
  throw busy();
}

/** Removes the device (checked); false when it changed meanwhile and must be re-read. */
async function unregister(deps: Deps, entry: Deno.KvEntry<Device>): Promise<boolean> {
  const { store } = deps;
  const d = entry.value;
  const ok = (await store.devices.remove(store.kv.atomic().check(entry), d).commit()).ok;
  if (ok) {
    await deps.events.publish({
      type: "device.unregistered",
      userOid: d.userOid,
      deviceId: d.deviceId,
      reason: tokenIdle(deps, d) ? "token_idle" : "pin_failures",
    });
  }
  return ok;
}

/**
 * Bearer use of a token: refuses an idle one; on the first use of a rotated token drops the
 * previous one, and otherwise stamps lastSeenAt at most once a day (a write per call would
 * cost every request a KV write).
 */
export async function touchToken(deps: Deps, entry: Deno.KvEntry<Device>, hash: string) {
  const { store } = deps;
  const d = entry.value;
  const first = hash === d.tokenHash && !!d.prevTokenHash;
  const stale = deps.now() - (d.lastSeenAt ?? d.activatedAt ?? d.createdAt) > DAY;
  if (!first && !stale) return;
  const op = store.kv.atomic().check(entry);
  if (first) store.devices.forgetToken(op, d.prevTokenHash!);
  const next: Device = { ...d, lastSeenAt: deps.now() };
  if (first) {
    // The replaced token is now an earlier one: no bearer, still known to the PIN check.
    next.oldTokens = keptTokens(
      [{ hash: d.prevTokenHash!, replacedAt: issuedAt(d) }, ...(d.oldTokens ?? [])],
      [hash],
      issuedAt(d) - EARLIER_TOKEN_MS,
    );
    delete next.prevTokenHash;
  }
  await store.devices.put(op, next).commit(); // a lost race leaves it for the next call
}
