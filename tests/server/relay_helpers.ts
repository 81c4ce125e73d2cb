/** Helpers shared by the relay tests (relay_test.ts, relay_edge_test.ts, relay_streams_test.ts, relay_paths_test.ts). */

export const opts = { sanitizeOps: false, sanitizeResources: false };

export async function answer(base: string, path: string, init: RequestInit) {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch { /* compared as text */ }
  return { status: res.status, json, headers: res.headers };
}
