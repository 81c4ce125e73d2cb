/**
 * The passkey wrapper's own write (client/crypto/passkey_wrap.ts) to QCDB's token record:
 * kept out of qcdb.ts so that only the passkey code (main screen's chunk) carries it.
 */
import { openQCDB, type PasskeyWrap, type TokenRecord } from "./qcdb.ts";

/**
 * Sets or removes the passkey wrapper of the stored token record, durably; false when there
 * is no record (not activated, or wiped meanwhile).
 */
export async function putPasskeyWrap(wrap: PasskeyWrap | null): Promise<boolean> {
  const db = await openQCDB();
  const tx = db.transaction("token", "readwrite", { durability: "strict" });
  const write = async () => {
    const cur = await tx.store.openCursor();
    if (!cur) return false;
    const next: TokenRecord = { ...cur.value };
    if (wrap) next.passkey = wrap;
    else delete next.passkey;
    await cur.update(next);
    return true;
  };
  const [ok] = await Promise.all([write(), tx.done]);
  return ok;
}
