import { Buffer } from "node:buffer";
import { createECDH } from "node:crypto";
import webpush from "web-push";
import { type Config, isPlaceholderSubject } from "../config.ts";

/** What signs our pushes (RFC 8292): base64url keys and the subject push services see. */
export interface Vapid {
  publicKey: string;
  privateKey: string;
  subject: string;
}

/** Where development keeps its generated pair, so every process on the KV shares it. */
export const VAPID_KV_KEY = ["push_vapid"] as const;

const cache = new WeakMap<Deno.Kv, Promise<Vapid | null>>();

/**
 * The VAPID keys of this server, once per KV: from VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY, or in
 * development (when unset) a pair generated once and kept in KV (the first process to write
 * it wins; the others read it). Null in production without keys: push is off and initialize
 * answers `vapidPublicKey: null`.
 */
export function vapidKeys(config: Config, kv: Deno.Kv): Promise<Vapid | null> {
  let p = cache.get(kv);
  if (!p) {
    p = loadVapid(config, kv);
    // A failure (KV closed meanwhile) is not remembered: the next caller tries again.
    p.catch(() => cache.delete(kv));
    cache.set(kv, p);
  }
  return p;
}

async function loadVapid(config: Config, kv: Deno.Kv): Promise<Vapid | null> {
  const subject = subjectOf(config);
  if (config.VAPID_PUBLIC_KEY && config.VAPID_PRIVATE_KEY) {
    const keys = { publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY };
    checkPair(keys);
    return { ...keys, subject };
  }
  if (config.APP_ENV === "production") return null;
  const stored = await kv.get<{ publicKey: string; privateKey: string }>(VAPID_KV_KEY);
  if (stored.value) return { ...stored.value, subject };
  const fresh = webpush.generateVAPIDKeys();
  const r = await retryLocked(() =>
    kv.atomic().check({ key: VAPID_KV_KEY, versionstamp: null }).set(VAPID_KV_KEY, fresh).commit()
  );
  if (r.ok) return { ...fresh, subject };
  const won = (await kv.get<{ publicKey: string; privateKey: string }>(VAPID_KV_KEY)).value;
  if (!won) throw new Error("the VAPID key pair vanished from KV");
  return { ...won, subject };
}

/** Two processes starting on one KV file may meet SQLite's lock: wait and try again. */
async function retryLocked<T>(f: () => Promise<T>): Promise<T> {
  for (let i = 0;; i++) {
    try {
      return await f();
    } catch (err) {
      if (i >= 20 || !/locked|busy/i.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 25 + Math.random() * 50));
    }
  }
}

/**
 * VAPID_SUBJECT, else (development) PUBLIC_URL when it is https, else MAIL_FROM's address:
 * fine for a local push service; config.ts makes production name a real one.
 */
export function subjectOf(config: Config): string {
  if (config.VAPID_SUBJECT) return config.VAPID_SUBJECT;
  if (config.PUBLIC_URL.startsWith("https:") && !isPlaceholderSubject(config.PUBLIC_URL)) {
    return new URL(config.PUBLIC_URL).origin;
  }
  const from = /<([^>]+)>/.exec(config.MAIL_FROM)?.[1] ?? config.MAIL_FROM;
  return `mailto:${from.trim()}`;
}

/** A private key that does not match its public key signs JWTs every push service refuses. */
function checkPair(keys: { publicKey: string; privateKey: string }): void {
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(keys.privateKey, "base64url"));
  if (ecdh.getPublicKey().toString("base64url") !== keys.publicKey) {
    throw new Error("VAPID_PRIVATE_KEY does not belong to VAPID_PUBLIC_KEY");
  }
}
