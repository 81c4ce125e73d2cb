import type { Context } from "hono";
import { DEVICE_ID_HEADER, DeviceId } from "../../client/api/contract/endpoint.ts";
import { badRequest, unauthorized } from "../errors.ts";
import { sha256 } from "../domain/secrets.ts";
import type { AppEnv, AuthContext } from "../env.ts";

/** The auth scheme is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^Bearer ([A-Za-z0-9_-]{22,128})$/i;

/**
 * Resolves `Authorization: Bearer` to an active device and its user by the stored token
 * hash (one hash, one or two KV reads; hono's bearerAuth would hash twice per call).
 */
export async function authenticate(c: Context<AppEnv>): Promise<AuthContext | null> {
  const m = BEARER.exec(c.req.header("authorization") ?? "");
  if (!m) return null;
  const { store } = c.var.deps;
  const hash = await sha256(m[1]);
  const ref = await store.devices.byTokenHash(hash);
  if (!ref) return null;
  const device = (await store.devices.get(ref.deviceId)).value;
  if (!device || device.status !== "active" || device.tokenHash !== hash) return null;
  const user = await store.users.get(device.userOid);
  return user ? { user, device } : null;
}

export async function requireBearer(c: Context<AppEnv>): Promise<AuthContext> {
  const a = await authenticate(c);
  if (!a) throw unauthorized("A valid bearer token is required");
  c.set("auth", a);
  return a;
}

/** Registration and PIN calls identify the device by the device-id header (spec §6). */
export function requireDeviceId(c: Context<AppEnv>): string {
  const raw = c.req.header(DEVICE_ID_HEADER);
  if (!raw) throw unauthorized("The device-id header is required");
  const r = DeviceId.safeParse(raw);
  if (!r.success) throw badRequest("invalid_device_id", r.error.issues[0].message);
  c.set("deviceId", r.data);
  return r.data;
}
