import { Hono } from "hono";
import { passkey } from "../../client/shared/contract/passkey.ts";
import type { AppEnv } from "../domain/env.ts";
import {
  passkeyUnlock,
  register,
  registrationOptions,
  removePasskey,
  unlockOptions,
} from "../domain/passkeys.ts";
import { route } from "./define.ts";

/**
 * Passkey unlock (server/domain/passkeys.ts): registration and switching off with the
 * device's bearer (after an unlock), assertion options and the unlock itself by device id,
 * like the PIN check (spec §7 pwacheckpinvalid).
 */
export function passkeyRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  route(app, passkey.registerOptions, async ({ c, auth }) => ({
    options: await registrationOptions(c.var.deps, auth!.device, auth!.user),
  }));

  route(app, passkey.register, async ({ c, body, auth }) => {
    await register(c.var.deps, auth!.device.deviceId, body.response);
    return { status: "OK" as const };
  });

  route(app, passkey.remove, async ({ c, auth }) => {
    await removePasskey(c.var.deps, auth!.device.deviceId);
    return { status: "OK" as const };
  });

  route(app, passkey.unlockOptions, async ({ c, deviceId }) => ({
    options: await unlockOptions(c.var.deps, deviceId!),
  }));

  route(app, passkey.unlock, async ({ c, body, deviceId }) => {
    const { token } = await passkeyUnlock(c.var.deps, deviceId!, body.token, body.response);
    return { status: "OK" as const, token };
  });

  return app;
}
