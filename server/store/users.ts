import type { SaltedHash } from "../secrets.ts";
import { listValues } from "./kv.ts";
import { bumpOrg } from "./org_version.ts";

export interface User {
  oid: string;
  email: string;
  fname: string;
  lname: string;
  locale: string;
  canRequest: boolean;
  isApprover: boolean;
  teams: string[];
  secret: { questionOid: string; answer: SaltedHash };
  /**
   * When the person left the organisation (server/domain/leavers.ts): the record stays
   * for history, with no teams and no roles, and nothing lets it in again.
   */
  leftAt?: number;
  /** The identity provider's own id of the person (SCIM externalId), when provisioned by one. */
  externalId?: string;
}

/** Users by oid, with a unique email index kept in the same atomic writes. */
export class UserRepo {
  constructor(private kv: Deno.Kv) {}

  async get(oid: string): Promise<User | null> {
    return (await this.kv.get<User>(["user", oid])).value;
  }

  async byEmail(email: string): Promise<User | null> {
    const idx = await this.kv.get<string>(["user_by_email", email.trim().toLowerCase()]);
    return idx.value ? await this.get(idx.value) : null;
  }

  async all(): Promise<User[]> {
    return await listValues<User>(this.kv, ["user"]);
  }

  /** Adds the writes that store a user (and its email index) to an atomic operation. */
  put(op: Deno.AtomicOperation, u: User): Deno.AtomicOperation {
    // The organisation's kept snapshot (org_cache.ts) follows every write of a user.
    return bumpOrg(op.set(["user", u.oid], u).set(["user_by_email", u.email], u.oid));
  }

  async count(): Promise<number> {
    let n = 0;
    for await (const _ of this.kv.list({ prefix: ["user"] }, { limit: 1 })) n++;
    return n;
  }
}
