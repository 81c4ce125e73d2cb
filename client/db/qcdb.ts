/**
 * QCDB, the app's IndexedDB database (spec §3: "Local browser database QCDB,
 * version 11, nine stores, each with an auto-incrementing id key"; spec §9).
 *
 * It holds what the app needs when the network fails (spec §1, §8): the sealed
 * token, the device id and encrypted copies of lists, approvals and lookup
 * lists. Nothing secret is stored in clear:
 *
 * - `token` keeps one {@link TokenRecord}: the sealed token (same text as the
 *   `qc_enctoken` cookie, which mirrors it), never the clear token or PIN.
 *   It is written with strict durability before the token is used: phones
 *   kill PWAs, and Chromium writes cookies to disk only every ~30 s.
 * - `lists`, `approvals` and the five lookup stores keep {@link CachedBlob}s:
 *   `encryptJson()` output under a caller-chosen `key` (e.g. `"pwalists"`,
 *   `"ledgers:<oid>:<ccoid>"`). Every one of these stores has a unique `key`
 *   index, our addition to spec §3, so a cache read or write is one index
 *   lookup and a key can never be stored twice.
 * - The lookup stores also carry spec §3's `label` and `value` indexes, so the
 *   database has the spec's shape whichever version created it. Encrypted
 *   blobs have no clear label or value, so those indexes stay empty: lookup
 *   labels (cost centres, GL codes) are company data and are not stored in
 *   clear either.
 *
 * Schema changes happen only in {@link migrate}, by `oldVersion` (engineering.md habit 9).
 * IndexedDB is not available in Deno: this module is type-checked here and
 * exercised in the browser tests.
 */
import {
  type DBSchema,
  deleteDB,
  type IDBPDatabase,
  type IndexNames,
  openDB,
  type StoreNames,
  unwrap,
} from "idb";

/** An encrypted value as QCDB keeps it (lists, approvals, lookups, the wrapped keys). */
export type EncryptedJson = {
  /** base64url, 12 bytes (AES-GCM's IV: client/crypto/device_key.ts IV_BYTES). */
  iv: string;
  /** base64url ciphertext including the GCM tag. */
  ct: string;
};

/** spec §3, §9. */
export const QCDB_NAME = "QCDB";
/** spec §3, §9: version 11. */
export const QCDB_VERSION = 11;
/** How long {@link wipeQCDB} waits for other tabs before giving up on them. */
export const WIPE_BLOCKED_WAIT_MS = 1000;

/** The one record of the `token` store. */
export interface TokenRecord {
  id?: number;
  /** `serializeSealed()` of the access token; never the clear token. */
  token: string;
  /**
   * Never the PIN: spec §3 names this column and makes it unique, and storing
   * a 6-digit PIN (or its hash, which 10^6 guesses reverse) would undo the
   * PIN's protection. It holds the KDF salt the token was sealed with, which
   * is unique per device and lets a mismatch with the cookie be noticed.
   */
  pin: string;
  /** Digits in the PIN (spec §9: 6), as in the `qc_pinlength` cookie. */
  pinlength: number;
  /**
   * Version of this copy of the sealed token, also carried by the cookie: of
   * two copies the higher one is the newer (absent in records written before
   * it existed: 0).
   */
  rev?: number;
  /**
   * The data key wrapped under the passkey's PRF-derived key, when passkey unlock is on
   * (client/crypto/data_key.ts). Not mirrored in a cookie: without QCDB the PIN unlocks.
   * A plain field, no index: the v11 layout is unchanged.
   */
  passkey?: PasskeyWrap;
}

/**
 * Wrapper 2 of the data key (client/crypto/passkey_wrap.ts): the data key under a key derived
 * from the passkey's PRF output. The PRF output itself is never stored.
 */
export interface PasskeyWrap {
  v: 1;
  /** base64url WebAuthn credential id, to ask the browser for this very passkey. */
  credentialId: string;
  /** base64url HKDF salt, random per wrapper. */
  salt: string;
  /** base64url IV and wrapped key (AES-GCM). */
  iv: string;
  ct: string;
}

/** The one record of the `deviceid` store (spec §7: `device-id` header). */
export interface DeviceIdRecord {
  id?: number;
  deviceid: string;
}

/** An encrypted cache entry (spec §8: fall back to locally stored data). */
export interface CachedBlob extends EncryptedJson {
  id?: number;
  /** Unique name of what is cached, e.g. `"pwalists"`. */
  key: string;
  /** `Date.now()` when written, to show how old offline data is. */
  savedAt: number;
}

type CacheIndexes = { key: string };
type LookupIndexes = CacheIndexes & { label: string; value: string };

/** spec §3: the nine stores of QCDB v11. */
export interface QCDBSchema extends DBSchema {
  token: {
    key: number;
    value: TokenRecord;
    indexes: { token: string; pin: string; pinlength: number };
  };
  deviceid: {
    key: number;
    value: DeviceIdRecord;
    indexes: { deviceid: string };
  };
  ledgercodes: { key: number; value: CachedBlob; indexes: LookupIndexes };
  projectcodes: { key: number; value: CachedBlob; indexes: LookupIndexes };
  costcenters: { key: number; value: CachedBlob; indexes: LookupIndexes };
  types: { key: number; value: CachedBlob; indexes: LookupIndexes };
  currencylist: { key: number; value: CachedBlob; indexes: LookupIndexes };
  lists: { key: number; value: CachedBlob; indexes: CacheIndexes };
  approvals: { key: number; value: CachedBlob; indexes: CacheIndexes };
}

/** Stores holding {@link CachedBlob}s. */
export type CachedStore =
  | "ledgercodes"
  | "projectcodes"
  | "costcenters"
  | "types"
  | "currencylist"
  | "lists"
  | "approvals";

type IndexSpec = { unique: boolean };
type Layout = {
  [S in StoreNames<QCDBSchema>]: {
    [I in IndexNames<QCDBSchema, S>]: IndexSpec;
  };
};

const UNIQUE: IndexSpec = { unique: true };
const PLAIN: IndexSpec = { unique: false };
const LOOKUP = { key: UNIQUE, label: PLAIN, value: PLAIN };

/**
 * The v11 layout as data; its type ties it to {@link QCDBSchema}, so a store
 * or index added to one and not the other fails `deno check`. Every index's
 * key path is its own name (spec §3 lists fields, not paths).
 */
const V11_LAYOUT: Layout = {
  token: { token: UNIQUE, pin: UNIQUE, pinlength: UNIQUE }, // spec §3: each unique
  deviceid: { deviceid: PLAIN },
  ledgercodes: LOOKUP,
  projectcodes: LOOKUP,
  costcenters: LOOKUP,
  types: LOOKUP,
  currencylist: LOOKUP,
  lists: { key: UNIQUE },
  approvals: { key: UNIQUE },
};

/**
 * Brings a database at `oldVersion` to {@link QCDB_VERSION}. One step a
 * version; a future v12 adds `if (oldVersion < 12) { … }` below.
 */
function migrate(db: IDBDatabase, tx: IDBTransaction, oldVersion: number) {
  if (oldVersion < 11) {
    // v11 is the first version this app creates. Databases from earlier
    // versions (a v10 QCDB) are brought to the v11 shape in place.
    ensureLayout(db, tx, V11_LAYOUT);
  }
}

/**
 * Creates missing stores and indexes and replaces ones whose shape differs
 * (keyPath, autoIncrement, uniqueness). A replaced store loses its records:
 * only cache data or a token this version cannot read could be in one, and
 * the app treats their absence as "not cached" / "not activated".
 */
function ensureLayout(db: IDBDatabase, tx: IDBTransaction, layout: Layout) {
  for (const [name, indexes] of Object.entries(layout)) {
    let store: IDBObjectStore | null = null;
    if (db.objectStoreNames.contains(name)) {
      store = tx.objectStore(name);
      if (store.keyPath !== "id" || !store.autoIncrement) {
        db.deleteObjectStore(name);
        store = null;
      }
    }
    store ??= db.createObjectStore(name, {
      keyPath: "id",
      autoIncrement: true,
    });
    for (
      const [index, spec] of Object.entries(
        indexes as Record<string, IndexSpec>,
      )
    ) {
      if (store.indexNames.contains(index)) {
        const existing = store.index(index);
        if (existing.keyPath === index && existing.unique === spec.unique) {
          continue;
        }
        store.deleteIndex(index);
      }
      store.createIndex(index, index, { unique: spec.unique });
    }
  }
}

let dbPromise: Promise<IDBPDatabase<QCDBSchema>> | null = null;

/**
 * The shared connection, opened (and migrated) on first use. One connection
 * per page: IndexedDB upgrades and deletes wait for every open connection.
 */
export function openQCDB(): Promise<IDBPDatabase<QCDBSchema>> {
  if (dbPromise) return dbPromise;
  const opening = openDB<QCDBSchema>(QCDB_NAME, QCDB_VERSION, {
    upgrade(db, oldVersion, _newVersion, tx) {
      migrate(unwrap(db), unwrap(tx), oldVersion);
    },
    blocking() {
      // Another tab upgrades or wipes QCDB (spec §4: five wrong PINs): let it.
      void closeQCDB();
    },
    terminated() {
      // The browser closed the connection (storage cleared): reopen on next use.
      if (dbPromise === opening) dbPromise = null;
    },
  });
  dbPromise = opening;
  opening.catch(() => {
    if (dbPromise === opening) dbPromise = null; // let a later call retry
  });
  return opening;
}

/** Closes the shared connection, if any; the next {@link openQCDB} reopens. */
export async function closeQCDB(): Promise<void> {
  const current = dbPromise;
  dbPromise = null;
  if (!current) return;
  let db: IDBPDatabase<QCDBSchema>;
  try {
    db = await current;
  } catch {
    return; // it never opened; its opener already saw the error
  }
  db.close();
}

/**
 * Deletes QCDB: 'remove local data' (spec §2), five wrong PINs (spec §4),
 * device no longer registered (spec §7). Resolves even when another tab keeps
 * the database open, after {@link WIPE_BLOCKED_WAIT_MS}: the deletion stays
 * queued and completes once that tab lets go, and the wipe must not hang the
 * lock screen meanwhile.
 */
export async function wipeQCDB(): Promise<void> {
  await closeQCDB();
  await new Promise<void>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    deleteDB(QCDB_NAME, {
      blocked() {
        timer ??= setTimeout(resolve, WIPE_BLOCKED_WAIT_MS);
      },
    }).then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/**
 * Replaces the stored token record (there is only ever one). Resolves once it
 * is on disk (strict durability): the app may use the token after that.
 */
export async function putToken(
  rec: Omit<TokenRecord, "id" | "passkey">,
  passkey: PasskeyWrap | null | "keep" = "keep",
): Promise<void> {
  const db = await openQCDB();
  const tx = db.transaction("token", "readwrite", { durability: "strict" });
  // Clear first: the unique indexes would refuse a second record. Awaiting
  // tx.done alongside reports an aborted transaction here, not as an
  // unhandled rejection. "keep" carries the passkey wrapper over (a token
  // rotation: the data key it wraps is the same), in the same transaction.
  const { token, pin, pinlength, rev } = rec;
  const write = async () => {
    const rec: TokenRecord = { token, pin, pinlength, rev };
    const kept = passkey === "keep" ? (await tx.store.getAll(undefined, 1))[0]?.passkey : passkey;
    if (kept) rec.passkey = kept;
    await tx.store.clear();
    await tx.store.add(rec);
  };
  await Promise.all([write(), tx.done]);
}

/**
 * Whether QCDB exists, without creating it (where the browser can tell):
 * a first visit's start screen need not wait for the database's creation.
 */
export async function qcdbExists(): Promise<boolean> {
  if (typeof indexedDB.databases !== "function") return true;
  try {
    return (await indexedDB.databases()).some((d) => d.name === QCDB_NAME);
  } catch {
    return true;
  }
}

/** The stored token record, or `undefined` before activation. */
export async function getToken(): Promise<TokenRecord | undefined> {
  const db = await openQCDB();
  return (await db.getAll("token", undefined, 1))[0];
}

/** Replaces the stored device id (there is only ever one). */
export async function putDeviceId(deviceid: string): Promise<void> {
  const db = await openQCDB();
  const tx = db.transaction("deviceid", "readwrite", { durability: "strict" });
  await Promise.all([tx.store.clear(), tx.store.add({ deviceid }), tx.done]);
}

/** The stored device id, or `undefined` before one is made. */
export async function getDeviceId(): Promise<string | undefined> {
  const db = await openQCDB();
  return (await db.getAll("deviceid", undefined, 1))[0]?.deviceid;
}

/**
 * Stores `value` (from `encryptJson()`) under `key`, replacing what was there,
 * stamped with the time it was saved.
 */
export async function putCached(
  store: CachedStore,
  key: string,
  value: EncryptedJson,
): Promise<void> {
  const db = await openQCDB();
  const tx = db.transaction(store, "readwrite");
  const rec: CachedBlob = {
    key,
    iv: value.iv,
    ct: value.ct,
    savedAt: Date.now(),
  };
  const write = async () => {
    // Reuse the record's id so the unique `key` index sees a replacement.
    const id = await tx.store.index("key").getKey(key);
    await tx.store.put(id === undefined ? rec : { ...rec, id });
  };
  await Promise.all([write(), tx.done]);
}

/** The cached blob under `key`, or `undefined`; decrypt with `decryptJson()`. */
export async function getCached(
  store: CachedStore,
  key: string,
): Promise<CachedBlob | undefined> {
  const db = await openQCDB();
  return await db.getFromIndex(store, "key", key);
}
