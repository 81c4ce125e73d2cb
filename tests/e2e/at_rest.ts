/**
 * What the app leaves at rest in IndexedDB, checked at every write and not only at the end
 * (spec §8: nothing in clear on the device; client/db/qcdb.ts). A page is watched from its first
 * document: every put, add and cursor update is reported as it is made, so a plain copy
 * written before the sealed one, or a plain record deleted later, is seen too.
 *
 * Checked without guessing from text: every cached blob must be an IV and a ciphertext that
 * AES-GCM *authenticates* under the device's key (derived here from the PIN and the sealed
 * token the page stored, as the app does), and its clear fields are only `id`, `key` and
 * `savedAt`. Searching a record's JSON for `JFIF` or `receipt-` (the capture test's first
 * check) cannot tell: both are base64url text, so the 630 KB of ciphertext of a two-page receipt
 * spells `JFIF` by chance in about one run of 26 (one hit per 64⁴ ≈ 16.8 million positions),
 * while a plain file kept as base64url (as the queue keeps it) spells neither `%PDF` nor `JFIF`
 * but by that same chance.
 */
import type { Page } from "puppeteer-core";
import { decryptJson, deriveDeviceKey } from "../../client/crypto/device_key.ts";
import { parseAny } from "../../client/crypto/data_key.ts";
import { unwrapDataKey } from "../../client/crypto/data_key_ops.ts";

/** One write to IndexedDB (or one record found there), its value as JSON. */
export interface IdbWrite {
  db: string;
  store: string;
  /** The value as JSON; binary data as `{"$binary": "<kind>", "size": n}`. */
  json: string;
}

/**
 * Reports every IndexedDB write of this realm (put, add, cursor update) to `report` as it is
 * made; returns a function listing every record of every database now. Self-contained (no
 * outside names): it runs in pages from their first script and under fake-indexeddb.
 */
export function idbProbe(report: (w: IdbWrite) => void): () => Promise<IdbWrite[]> {
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  const json = (v: unknown): string => {
    try {
      const binary = (x: unknown) =>
        x instanceof g.Blob
          ? { $binary: (x as Blob).constructor.name, size: (x as Blob).size }
          : x instanceof ArrayBuffer
          ? { $binary: "ArrayBuffer", size: x.byteLength }
          : ArrayBuffer.isView(x)
          ? { $binary: x.constructor.name, size: x.byteLength }
          : x;
      return JSON.stringify(v, (_k, x) => binary(x)) ?? "null";
    } catch (e) {
      return JSON.stringify({ $unserialisable: String(e) });
    }
  };
  // deno-lint-ignore no-explicit-any
  const wrap = (proto: any, method: string, storeOf: (self: any) => IDBObjectStore) => {
    const original = proto[method];
    proto[method] = function (this: unknown, value: unknown, ...rest: unknown[]) {
      const s = storeOf(this);
      report({ db: s.transaction.db.name, store: s.name, json: json(value) });
      return original.call(this, value, ...rest);
    };
  };
  wrap(g.IDBObjectStore.prototype, "put", (s) => s);
  wrap(g.IDBObjectStore.prototype, "add", (s) => s);
  wrap(
    g.IDBCursor.prototype,
    "update",
    (c) => "objectStore" in c.source ? c.source.objectStore : c.source,
  );
  const done = <T>(r: IDBRequest<T>) =>
    new Promise<T>((resolve, reject) => {
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
  return async () => {
    const out: IdbWrite[] = [];
    const factory = g.indexedDB as IDBFactory;
    for (const { name } of await factory.databases()) {
      if (!name) continue;
      const db = await done(factory.open(name));
      try {
        for (const store of Array.from(db.objectStoreNames)) {
          const all = await done(db.transaction(store).objectStore(store).getAll());
          for (const v of all) out.push({ db: name, store, json: json(v) });
        }
      } finally {
        db.close();
      }
    }
    return out;
  };
}

/** What lies in clear (one line each; empty: nothing) and the cached blobs opened. */
export interface AtRest {
  problems: string[];
  opened: { store: string; key: string; value: unknown }[];
}

/** Names and file contents a receipt would show in clear, raw or as base64/base64url. */
const CLEAR_MARKS = /%PDF|JFIF|Exif|receipt-|JVBERi|\/9j\/|_9j_|\.pdf\b|\.jpe?g\b/i;

const CACHED = new Set([
  "ledgercodes",
  "projectcodes",
  "costcenters",
  "types",
  "currencylist",
  "lists",
  "approvals",
]);
const TOKEN_FIELDS = new Set(["id", "token", "pin", "pinlength", "rev", "passkey"]);
const BLOB_FIELDS = new Set(["id", "key", "iv", "ct", "savedAt"]);

/**
 * Checks IndexedDB writes (or records) against QCDB's rule: the token store holds a sealed
 * token and its salt, the device id store an id, and every other record is a blob sealed
 * under the device's key with nothing else in clear. The device's keys come from the sealed
 * tokens among `writes` and `pin` (wrapper 1 of the data key; a v1 token's PIN key).
 */
export async function inClear(writes: IdbWrite[], pin: string): Promise<AtRest> {
  const problems: string[] = [];
  const opened: AtRest["opened"] = [];
  const parsed = writes.map((w) => ({ ...w, value: JSON.parse(w.json) as unknown }));
  const keys: CryptoKey[] = [];
  const seen = new Set<string>();
  for (const w of parsed) {
    const token = (w.value as { token?: unknown } | null)?.token;
    if (w.db !== "QCDB" || w.store !== "token" || typeof token !== "string") continue;
    const s = parseAny(token);
    if (!s) continue;
    const id = s.v === 2 ? `${s.kdf.salt}.${s.wrap.iv}.${s.wrap.ct}` : s.kdf.salt;
    if (seen.has(id)) continue;
    seen.add(id);
    const pinKey = await deriveDeviceKey(pin, s.kdf);
    keys.push(s.v === 2 ? await unwrapDataKey(pinKey, s.wrap) : pinKey);
  }
  for (const { db, store, json, value } of parsed) {
    const where = `${db}/${store}`;
    if (json.includes('"$binary"') || json.includes('"$unserialisable"')) {
      problems.push(`${where}: binary data stored: ${json.slice(0, 120)}`);
      continue;
    }
    if (db !== "QCDB") {
      problems.push(`${where}: a database other than QCDB: ${json.slice(0, 120)}`);
      continue;
    }
    const rec = (value ?? {}) as Record<string, unknown>;
    const fields = Object.keys(rec);
    const clearMark = (clear: Record<string, unknown>) => {
      const text = JSON.stringify(clear);
      const m = CLEAR_MARKS.exec(text);
      if (m) problems.push(`${where}: "${m[0]}" in clear: ${text.slice(0, 120)}`);
    };
    if (store === "token") {
      const extra = fields.filter((f) => !TOKEN_FIELDS.has(f));
      if (extra.length) problems.push(`${where}: fields in clear: ${extra.join(", ")}`);
      if (typeof rec.token !== "string" || !parseAny(rec.token)) {
        problems.push(`${where}: the token is not a sealed token`);
      }
      const { token: _t, passkey: _p, ...clear } = rec;
      clearMark(clear);
      continue;
    }
    if (store === "deviceid") {
      if (fields.some((f) => f !== "id" && f !== "deviceid")) {
        problems.push(`${where}: fields in clear: ${fields.join(", ")}`);
      }
      clearMark(rec);
      continue;
    }
    if (!CACHED.has(store)) {
      problems.push(`${where}: a store QCDB does not have`);
      continue;
    }
    const key = typeof rec.key === "string" ? rec.key : "(no key)";
    const extra = fields.filter((f) => !BLOB_FIELDS.has(f));
    if (extra.length) problems.push(`${where} "${key}": fields in clear: ${extra.join(", ")}`);
    clearMark({ id: rec.id, key: rec.key, savedAt: rec.savedAt });
    if (typeof rec.iv !== "string" || typeof rec.ct !== "string") {
      problems.push(`${where} "${key}": not a sealed blob (no iv and ct)`);
      continue;
    }
    let plain: unknown = undefined;
    let sealed = false;
    for (const k of keys) {
      try {
        plain = await decryptJson(k, { iv: rec.iv, ct: rec.ct });
        sealed = true;
        break;
      } catch {
        // not under this key
      }
    }
    if (sealed) opened.push({ store, key, value: plain });
    else problems.push(`${where} "${key}": its ciphertext does not open under the device's key`);
  }
  return { problems, opened };
}

/**
 * Watches pages' IndexedDB from their first document (call before the first `goto`), then
 * checks every write they made and what their databases hold at the end.
 */
export class AtRestWatch {
  readonly writes: IdbWrite[] = [];
  #pages: Page[] = [];

  async watch(page: Page): Promise<void> {
    this.#pages.push(page);
    await page.exposeFunction("__qcAtRest", (w: IdbWrite & { doc: string }) => {
      this.writes.push(w);
    });
    await page.evaluateOnNewDocument(`(() => {
      const doc = String(Math.random()); let n = 0;
      globalThis.__qcAtRestSent = () => ({ doc, n });
      globalThis.__qcAtRestDump = (${idbProbe.toString()})((w) => {
        n++; // a write that never arrives makes settle() fail, so this never hides one
        try {
          globalThis.__qcAtRest({ ...w, doc }).catch(() => {});
        } catch {}
      });
    })()`);
  }

  /** Waits until every write `page`'s document reported has arrived here. */
  async settle(page: Page): Promise<void> {
    // deno-lint-ignore no-explicit-any
    const { doc, n } = await page.evaluate(() => (globalThis as any).__qcAtRestSent());
    const end = Date.now() + 10_000;
    const got = () => this.writes.filter((w) => (w as { doc?: string }).doc === doc).length;
    while (got() < n) {
      if (Date.now() > end) throw new Error(`IndexedDB writes: ${got()} of ${n} arrived`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * Every write made so far and every record `page`'s origin now holds, checked: throws
   * naming what lies in clear; returns the cached blobs (opened) as they are now.
   */
  async check(page: Page, pin: string): Promise<AtRest["opened"]> {
    for (const p of this.#pages) if (!p.isClosed()) await this.settle(p);
    // deno-lint-ignore no-explicit-any
    const now: IdbWrite[] = await page.evaluate(() => (globalThis as any).__qcAtRestDump());
    // The watch itself works: the app's first write (the sealed token) was seen.
    if (!this.writes.some((w) => w.store === "token")) {
      throw new Error("IndexedDB writes: none seen (watch() after the first navigation?)");
    }
    const r = await inClear([...this.writes, ...now], pin);
    if (r.problems.length) {
      throw new Error(`in clear in IndexedDB:\n${[...new Set(r.problems)].join("\n")}`);
    }
    return (await inClear(now, pin)).opened;
  }
}
