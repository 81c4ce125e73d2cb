/**
 * Where the issuer vault's key comes from (docs/configuration.md): `ISSUER_KEY` (32 bytes,
 * base64url) when set; required in production and on Deno Deploy; in development with a KV file,
 * generated once and kept beside that file (mode 0600) with one warning line that says so; with an
 * in-memory KV, a random key that dies with it. The key is never printed, and what leaves this
 * module is a non-extractable AES-GCM CryptoKey.
 */
import { isPostgresUrl } from "../config.ts";
import { base64url } from "./encoding.ts";

export interface IssuerKeySource {
  /** base64url of 32 random bytes (padding optional); see `newIssuerKeyText`. */
  ISSUER_KEY?: string;
  APP_ENV: string;
  KV_PATH: string;
  /** On Deno Deploy KV is managed and nothing is written to disk. */
  onDeploy: boolean;
}

export interface IssuerKeyOptions {
  /** Where the development warning goes (one line); console.warn by default. */
  warn?: (line: string) => void;
}

const KEY_BYTES = 32;
const KEY_FILE = "issuer.key";

/** A fresh key in the form ISSUER_KEY takes (`deno eval` it to provision production). */
export function newIssuerKeyText(): string {
  const b = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
  const text = base64url(b);
  b.fill(0);
  return text;
}

/**
 * The 32 key bytes of an ISSUER_KEY text, or an Error naming `name` (never echoing the value):
 * strict base64url, canonical, exactly 32 bytes, not one byte repeated (a placeholder).
 */
export function parseIssuerKey(text: string, name = "ISSUER_KEY"): Uint8Array<ArrayBuffer> {
  const t = text.trim().replace(/=$/, "");
  const bad = (why: string) =>
    new Error(`${name} ${why}: it must be 32 random bytes in base64url (43 characters)`);
  if (!/^[A-Za-z0-9_-]*$/.test(t)) throw bad("is not base64url");
  if (t.length !== 43) throw bad(`does not hold 32 bytes`);
  const bin = atob(t.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  if (base64url(bytes) !== t) throw bad("is not canonical base64url");
  if (bytes.every((x) => x === bytes[0])) throw bad("is one byte repeated");
  return bytes;
}

/** `<directory of KV_PATH>/issuer.key`. */
export function issuerKeyPath(kvPath: string): string {
  const i = Math.max(kvPath.lastIndexOf("/"), kvPath.lastIndexOf("\\"));
  return i < 0 ? KEY_FILE : `${kvPath.slice(0, i + 1)}${KEY_FILE}`;
}

async function importKey(bytes: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  try {
    return await crypto.subtle.importKey("raw", bytes, "AES-GCM", false, ["encrypt", "decrypt"]);
  } finally {
    bytes.fill(0);
  }
}

/** The vault key, per the rules above. Throws an Error naming ISSUER_KEY when it must be set. */
export async function loadIssuerKey(
  src: IssuerKeySource,
  opts: IssuerKeyOptions = {},
): Promise<CryptoKey> {
  if (src.ISSUER_KEY !== undefined && src.ISSUER_KEY !== "") {
    return await importKey(parseIssuerKey(src.ISSUER_KEY));
  }
  if (src.APP_ENV === "production") {
    throw new Error(
      "ISSUER_KEY is required in production: 32 random bytes in base64url, kept in the " +
        "platform's secrets (card numbers in KV are encrypted with it)",
    );
  }
  if (src.onDeploy) {
    // Every isolate would draw its own key and no one could read the others' cards.
    throw new Error("ISSUER_KEY is required on Deno Deploy (there is no disk to keep one on)");
  }
  if (isPostgresUrl(src.KV_PATH)) {
    // Several processes share a PostgreSQL store: a key file on one disk is not theirs.
    throw new Error("ISSUER_KEY is required with a PostgreSQL store (32 random bytes, base64url)");
  }
  if (src.KV_PATH === ":memory:") {
    return await importKey(crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
  }
  const path = issuerKeyPath(src.KV_PATH);
  const { bytes, created } = await keyFile(path);
  (opts.warn ?? console.warn)(
    `issuer: ISSUER_KEY is not set; card numbers are encrypted with a development key ` +
      `${created ? "generated now and kept" : "kept"} in ${path} (mode 0600, beside the KV ` +
      `file: keep them together; set ISSUER_KEY in production)`,
  );
  return await importKey(bytes);
}

/**
 * Reads the key file, or creates it once: the new key is written to a private temporary file,
 * then hard-linked to its name, which fails if another process got there first (then its key
 * is read). So two servers starting together end up with one key, never a half-written file.
 */
async function keyFile(
  path: string,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; created: boolean }> {
  const existing = await readKeyFile(path);
  if (existing) return { bytes: existing, created: false };
  const dir = path.slice(0, Math.max(0, path.length - KEY_FILE.length));
  if (dir) await Deno.mkdir(dir, { recursive: true });
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  const text = newIssuerKeyText();
  try {
    await Deno.writeTextFile(tmp, `${text}\n`, { createNew: true, mode: 0o600 });
    await Deno.chmod(tmp, 0o600).catch(() => {}); // umask, or a platform without modes
    await Deno.link(tmp, path);
    return { bytes: parseIssuerKey(text, path), created: true };
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    const won = await readKeyFile(path);
    if (!won) throw new Error(`${path} vanished while it was being created`);
    return { bytes: won, created: false };
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}

async function readKeyFile(path: string): Promise<Uint8Array<ArrayBuffer> | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  const bytes = parseIssuerKey(text, path);
  const st = await Deno.stat(path);
  // A copy that lost its mode: make it private again.
  if (st.mode !== null && (st.mode & 0o077) !== 0) await Deno.chmod(path, 0o600);
  return bytes;
}
