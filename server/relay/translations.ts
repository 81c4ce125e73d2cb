/**
 * spec §7 pwatranslation at the edge (relay mode): the shell must open in the person's language
 * even when the upstream is slow, so the edge keeps the last answer per locale in its store (shared
 * by every edge process) and revalidates it on each call:
 *
 * - the call is always relayed (signed in, the upstream records the language as the user's);
 * - its answer (200) replaces the kept one and is what the client gets;
 * - with a kept answer for the locale asked, the edge waits at most FRESH_WAIT_MS: past it,
 *   or when the upstream fails (5xx, unreachable), the kept answer is served (`X-QCard-Cache:
 *   stale`) while the relayed call finishes in the background and refreshes it;
 * - 4xx answers (a bad token, a bad query) are the client's: passed on, never replaced.
 */

/** How long a call with a kept answer waits for the upstream before the kept one is served. */
export const FRESH_WAIT_MS = 1_500;
/**
 * Kept answers larger than this, in UTF-8 bytes, are not kept (a KV value holds 64 KiB). The
 * answer is kept as UTF-8 bytes: a JS string with any character beyond Latin-1 („“, ’, …) is
 * serialised two bytes a character, so a 34 KB German translation no longer fitted as a string.
 */
const MAX_KEPT = 60 * 1024;
/** A kept answer nobody asked for in this long is dropped. */
const KEEP_MS = 30 * 86_400_000;

const key = (locale: string): Deno.KvKey => ["edge_translation", locale];

interface Kept {
  body: Uint8Array;
  at: number;
}

/** The locale a pwatranslation call asks for (query first, then Accept-Language), or null. */
export function askedLocale(url: string, acceptLanguage: string | null): string | null {
  const q = new URL(url).searchParams.get("locale");
  const tag = q ?? acceptLanguage?.split(",")[0] ?? null;
  const lang = tag?.trim().slice(0, 2).toLowerCase();
  return lang && /^[a-z]{2}$/.test(lang) ? lang : null;
}

export async function keptTranslation(kv: Deno.Kv, locale: string): Promise<Kept | null> {
  const kept = (await kv.get<{ body: Uint8Array | string; at: number }>(key(locale))).value;
  if (!kept) return null;
  // One kept by an earlier version as a string is still served.
  const body = typeof kept.body === "string" ? new TextEncoder().encode(kept.body) : kept.body;
  return { body, at: kept.at };
}

/** Keeps a 200 answer's JSON under the locale it says it is in. */
export async function keepTranslation(kv: Deno.Kv, body: string, now: number): Promise<void> {
  const bytes = new TextEncoder().encode(body);
  if (bytes.length > MAX_KEPT) return;
  let locale: unknown;
  try {
    locale = (JSON.parse(body) as { locale?: unknown }).locale;
  } catch {
    return;
  }
  if (typeof locale !== "string" || !/^[a-z]{2}$/.test(locale)) return;
  await kv.set(key(locale), { body: bytes, at: now } satisfies Kept, { expireIn: KEEP_MS });
}
