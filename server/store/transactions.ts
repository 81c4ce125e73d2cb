import { listValues } from "./kv.ts";

/**
 * Card transactions (spec §3). Only what the request rules read is here yet: the missing
 * receipts rule of spec §5. The transactions issue adds the rest of the entity.
 */
export interface TransactionRecord {
  oid: string;
  userOid: string;
  expenseOid: string;
  transactionStatus: string;
  nbReceipts: number;
  createdAt: number;
}

export class TransactionRepo {
  constructor(private kv: Deno.Kv) {}

  async byUser(userOid: string): Promise<TransactionRecord[]> {
    return await listValues<TransactionRecord>(this.kv, ["transaction", userOid]);
  }

  put(op: Deno.AtomicOperation, t: TransactionRecord): Deno.AtomicOperation {
    return op.set(["transaction", t.userOid, t.oid], t);
  }
}
