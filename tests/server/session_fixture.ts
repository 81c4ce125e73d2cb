/**
 * What the registration and session suites share (session_*_test.ts): the spec's PIN messages,
 * the activation calls and the bad inputs every device-id + JSON body call must refuse.
 */
import { type TestApi } from "../helpers.ts";
import { assertError } from "./api.ts";

export const E = "/scmapi/expense";
export const DAY = 24 * 60 * 60_000;
export const REPETITION = "For security reasons, try using less repetition in your Pin";
export const SEQUENCE =
  "For security reasons, do not use a direct sequence of ascending / descending numbers";
/** A well-formed bearer token that no device holds. */
export const FOREIGN_TOKEN = "A".repeat(43);

export const dev = (id: string) => ({ "device-id": id });

/** Every activation code mailed to an address, newest first. */
export async function codesFor(api: TestApi, email: string): Promise<string[]> {
  const mails = await api.deps.outbox!.list({ to: email });
  return mails.map((m) => /activation code is (\d{5})/.exec(m.text)?.[1]).filter((c): c is string =>
    !!c
  );
}

export async function checkValidation(api: TestApi, deviceId: string, code: string) {
  return await api.call("POST", `${E}/pwacheckvalidation`, {
    body: { verificationcode: code },
    headers: dev(deviceId),
  });
}

export async function confirmPin(api: TestApi, deviceId: string, code: string, pin: string) {
  return await api.call("POST", `${E}/pwaconfirmpin`, {
    body: { verificationcode: code, pin },
    headers: dev(deviceId),
  });
}

export async function checkPin(api: TestApi, deviceId: string, token: string, pin: string) {
  return await api.call("POST", `${E}/pwacheckpinvalid`, {
    body: { token, pin },
    headers: dev(deviceId),
  });
}

export async function checkRegistered(api: TestApi, deviceId: string, token: string) {
  return await api.call("POST", `${E}/pwacheckregistered`, {
    body: { token },
    headers: dev(deviceId),
  });
}

/** Bad inputs every device-id + JSON body call must refuse with 400/401, never 5xx. */
export async function assertRefusesBadInput(
  api: TestApi,
  path: string,
  good: Record<string, unknown>,
  wrongTypes: Record<string, unknown>[],
) {
  const id = api.newDeviceId();
  // No device-id header: 401; a malformed one: 400.
  assertError(await api.call("POST", path, { body: good }), 401, "unauthorized");
  for (
    const bad of ["short", "has space in it", "ünïcødé-device", "x".repeat(129), "a/b/c/d/e/f"]
  ) {
    assertError(
      await api.call("POST", path, { body: good, headers: dev(bad) }),
      400,
      "invalid_device_id",
    );
  }
  // Malformed JSON.
  assertError(
    await api.call("POST", path, {
      raw: "{",
      headers: { ...dev(id), "content-type": "application/json" },
    }),
    400,
    "malformed_json",
  );
  // Empty body, empty object, arrays, null, scalars.
  for (const raw of ["", "{}", "[]", "null", "42", '"text"', JSON.stringify([good])]) {
    assertError(await api.call("POST", path, { raw, headers: dev(id) }), 400, "invalid_body");
  }
  // Every field missing in turn, then set to null, to a number, to an array.
  for (const k of Object.keys(good)) {
    const { [k]: _drop, ...missing } = good;
    assertError(
      await api.call("POST", path, { body: missing, headers: dev(id) }),
      400,
      "invalid_body",
      new RegExp(k),
    );
    for (const v of [null, 12345, [good[k]], { v: good[k] }]) {
      assertError(
        await api.call("POST", path, { body: { ...good, [k]: v }, headers: dev(id) }),
        400,
        "invalid_body",
        new RegExp(k),
      );
    }
  }
  for (const body of wrongTypes) {
    assertError(await api.call("POST", path, { body, headers: dev(id) }), 400, "invalid_body");
  }
  // Larger than 64 KiB: 413 JSON before anything is parsed.
  const big = JSON.stringify({ ...good, pad: "x".repeat(70 * 1024) });
  assertError(
    await api.call("POST", path, {
      raw: big,
      headers: { ...dev(id), "content-type": "application/json" },
    }),
    413,
    "payload_too_large",
  );
}
