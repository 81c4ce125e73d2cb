import type { Context } from "hono";
import { DEVICE_ID_HEADER, DeviceId } from "../../client/shared/contract/endpoint.ts";
import { badRequest, unauthorized } from "../errors.ts";
import { sha256 } from "../secrets.ts";
import { tokenIdle, touchToken } from "../domain/pin_check.ts";
import type { AppEnv, AuthContext } from "../domain/env.ts";

/** The auth scheme is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^Bearer ([A-Za-z0-9_-]{22,128})$/i;

/**
 * Resolves `Authorization: Bearer` to an active device and its user by the stored token
 * hash (one hash; one store read for a token this process has seen, else two: the token
 * index, then device and user together; hono's bearerAuth would hash twice per call).
 * A token idle past TOKEN_IDLE_DAYS no longer authenticates; the previous token of a
 * rotation works until the new one is first used.
 */
export async function authenticate(c: Context<AppEnv>): Promise<AuthContext | null> {
  // Already known (callerFirst, before any body was read): one lookup and touch a request.
  const known = c.get("auth");
  if (known) return known;
  const m = BEARER.exec(c.req.header("authorization") ?? "");
  if (!m) return null;
  const { store } = c.var.deps;
  const hash = await sha256(m[1]);
  // The device and its user (one read for a token seen before); the device's own userOid
  // is what counts.
  const found = await store.devices.byToken(hash);
  if (!found) return null;
  const [entry, named] = found;
  const device = entry.value;
  if (!device || device.status !== "active") return null;
  if (device.tokenHash !== hash && device.prevTokenHash !== hash) return null;
  if (tokenIdle(c.var.deps, device)) return null;
  await touchToken(c.var.deps, entry as Deno.KvEntry<typeof device>, hash);
  const user = named?.oid === device.userOid ? named : await store.users.get(device.userOid);
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
