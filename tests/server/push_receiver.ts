/**
 * A local push service for the push tests and bench (spec §1 push notifications): Deno.serve on
 * 127.0.0.1, port 0. Every POST to /push/<name> is checked like a real push service would (RFC 8292
 * VAPID: `vapid t=<JWT>, k=<key>`, ES256 signature verified with k, aud = this origin, exp within
 * 24 h, sub = the expected subject) and its aes128gcm body is decrypted (RFC 8188 + RFC 8291) with
 * the subscriber's own private key and auth secret, generated here. Answers 201, or the statuses
 * queued for that subscriber (410, 500…).
 */

const te = new TextEncoder();
const b64url = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const unb64url = (s: string) =>
  Uint8Array.from(atob(s.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) out.set(p, (i += p.length) - p.length);
  return out;
};

/** A browser's side of a subscription: its keys, and the JSON it would give the app. */
export interface Subscriber {
  name: string;
  privateKey: CryptoKey;
  publicRaw: Uint8Array<ArrayBuffer>;
  auth: Uint8Array<ArrayBuffer>;
  /** `JSON.stringify(pushSubscription)`: the pushToken of pwaregisterpushtoken. */
  token: string;
}

export interface Delivery {
  name: string;
  payload: { title: string; body: string; url: string; tag: string; actions?: unknown };
  ttl: number;
  urgency: string | null;
  claims: { aud: string; exp: number; sub: string };
}

async function hkdf(salt: Uint8Array, ikm: Uint8Array, info: Uint8Array, bytes: number) {
  const key = await crypto.subtle.importKey("raw", new Uint8Array(ikm), "HKDF", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(salt), info: new Uint8Array(info) },
    key,
    bytes * 8,
  );
  return new Uint8Array(bits);
}

/** RFC 8291 §3.4 + RFC 8188: one aes128gcm record, decrypted with the subscriber's keys. */
export async function decrypt(body: Uint8Array, s: Subscriber): Promise<string> {
  const salt = body.slice(0, 16);
  const rs = new DataView(body.buffer, body.byteOffset + 16, 4).getUint32(0);
  const idlen = body[20];
  const keyid = body.slice(21, 21 + idlen);
  const ct = body.slice(21 + idlen);
  if (idlen !== 65) throw new Error(`keyid of ${idlen} bytes, expected the sender's 65-byte key`);
  if (ct.length > rs) throw new Error("more than one record");
  const senderKey = await crypto.subtle.importKey(
    "raw",
    keyid,
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const secret = new Uint8Array(
    await crypto.subtle.deriveBits({ name: "ECDH", public: senderKey }, s.privateKey, 256),
  );
  const keyInfo = concat(te.encode("WebPush: info\0"), s.publicRaw, keyid);
  const ikm = await hkdf(s.auth, secret, keyInfo, 32);
  const cek = await hkdf(salt, ikm, te.encode("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, te.encode("Content-Encoding: nonce\0"), 12);
  const key = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["decrypt"]);
  const plain = new Uint8Array(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, key, ct),
  );
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error("no last-record padding delimiter (0x02)");
  return new TextDecoder().decode(plain.slice(0, end));
}

/** RFC 8292: checks the Authorization header; the JWT's claims, or throws why not. */
async function checkVapid(header: string | null, origin: string, key: string, subject: string) {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "");
  if (!m) throw new Error(`Authorization is not 'vapid t=…, k=…': ${header}`);
  const [, jwt, k] = m;
  if (k !== key) throw new Error("k is not the server's VAPID public key");
  const [h, p, sig] = jwt.split(".");
  const head = JSON.parse(new TextDecoder().decode(unb64url(h)));
  if (head.alg !== "ES256") throw new Error(`alg ${head.alg}`);
  const pub = await crypto.subtle.importKey(
    "raw",
    unb64url(k),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const ok = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    pub,
    unb64url(sig),
    te.encode(`${h}.${p}`),
  );
  if (!ok) throw new Error("bad JWT signature");
  const claims = JSON.parse(new TextDecoder().decode(unb64url(p)));
  const now = Date.now() / 1000;
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud}, expected ${origin}`);
  if (!(claims.exp > now && claims.exp <= now + 86_400)) throw new Error(`exp ${claims.exp}`);
  if (claims.sub !== subject) throw new Error(`sub ${claims.sub}, expected ${subject}`);
  return claims as Delivery["claims"];
}

export function startReceiver(opts: { subject: string }) {
  const subscribers = new Map<string, Subscriber>();
  const statuses = new Map<string, number[]>();
  const attempts = new Map<string, number>();
  const deliveries: Delivery[] = [];
  const errors: string[] = [];
  let vapidKey = "";
  let origin = "";
  let waiters: (() => void)[] = [];

  const handle = async (req: Request): Promise<Response> => {
    const name = new URL(req.url).pathname.replace(/^\/push\//, "");
    const s = subscribers.get(name);
    if (req.method !== "POST" || !s) return new Response("no such subscription", { status: 404 });
    attempts.set(name, (attempts.get(name) ?? 0) + 1);
    const body = new Uint8Array(await req.arrayBuffer());
    let d: Delivery;
    try {
      if (req.headers.get("content-encoding") !== "aes128gcm") throw new Error("not aes128gcm");
      const ttl = Number(req.headers.get("ttl"));
      if (!Number.isInteger(ttl) || ttl < 0) throw new Error(`TTL ${req.headers.get("ttl")}`);
      const claims = await checkVapid(
        req.headers.get("authorization"),
        origin,
        vapidKey,
        opts.subject,
      );
      const payload = JSON.parse(await decrypt(body, s));
      d = { name, payload, ttl, urgency: req.headers.get("urgency"), claims };
    } catch (err) {
      errors.push(`${name}: ${err instanceof Error ? err.message : err}`);
      return new Response("refused", { status: 400 });
    }
    const status = statuses.get(name)?.shift() ?? 201;
    if (status < 300) deliveries.push(d);
    for (const w of waiters) w();
    waiters = [];
    return new Response(null, { status });
  };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handle);
  origin = `http://127.0.0.1:${server.addr.port}`;

  return {
    origin,
    deliveries,
    errors,
    attempts,
    /** The key the JWTs must name and be signed with (initialize's vapidPublicKey). */
    expectKey(key: string) {
      vapidKey = key;
    },
    /** A new browser subscription whose endpoint is /push/<name> here. */
    async subscribe(name: string): Promise<Subscriber> {
      const pair = await crypto.subtle.generateKey(
        { name: "ECDH", namedCurve: "P-256" },
        true,
        ["deriveBits"],
      ) as CryptoKeyPair;
      const publicRaw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
      const auth = crypto.getRandomValues(new Uint8Array(16));
      const token = JSON.stringify({
        endpoint: `${origin}/push/${name}`,
        expirationTime: null,
        keys: { p256dh: b64url(publicRaw), auth: b64url(auth) },
      });
      const s = { name, privateKey: pair.privateKey, publicRaw, auth, token };
      subscribers.set(name, s);
      return s;
    },
    /** The next answers to `name` (then 201 again). */
    answer(name: string, ...codes: number[]) {
      statuses.set(name, codes);
    },
    /** Deliveries to one subscriber, in order. */
    to(name: string) {
      return deliveries.filter((d) => d.name === name);
    },
    async waitFor(n: number, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (deliveries.length < n && Date.now() < until) {
        await new Promise<void>((r) => {
          const t = setTimeout(r, 50);
          waiters.push(() => (clearTimeout(t), r()));
        });
      }
    },
    async close() {
      await server.shutdown();
    },
  };
}

export type Receiver = ReturnType<typeof startReceiver>;
