/** Helpers shared by the security tests (security_test.ts, security_pin_test.ts, security_surface_test.ts). */
import { type TestApi } from "../helpers.ts";
import { type Res } from "./api.ts";

export const E = "/scmapi/expense";

/** A call from a given client address (as Deno.serve's remoteAddr), with a device id. */
export async function from(
  api: TestApi,
  addr: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Res> {
  const res = await api.app.request(`/bonita${E}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  }, { remoteAddr: { hostname: addr } });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch { /* asserted by callers */ }
  return { status: res.status, json, res, text } as Res;
}

export const code5 = (n: number) => String(n % 100_000).padStart(5, "0");
