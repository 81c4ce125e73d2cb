import type { Org } from "../org/schema.ts";
import { listValues } from "./kv.ts";

export type OrgMeta = Pick<Org, "organisation" | "settings">;

/** Where the organisation's name and settings are kept. */
export const META_KEY: Deno.KvKey = ["org", "meta"];
export type SecretQuestion = Org["secretQuestions"][number];
export type Team = Org["teams"][number];
export type OrgAccount = Org["accounts"][number];
export type OrgType = Org["requestTypes"][number];
export type OrgCostCenter = Org["costCenters"][number];
export type OrgCode = Org["ledgers"][number];
export type OrgCurrency = Org["currencies"][number];
export type OrgCountry = Org["countries"][number];

/**
 * Where a reference record removed from the organisation file but still named by an open request
 * is kept: ["org_archived", collection, key]. Read by key (the request still shows it),
 * never listed among what is offered.
 */
export const ARCHIVED = "org_archived";

/**
 * The organisation's configuration and reference data (spec §3 lookups). Each collection is
 * stored under its own prefix so later issues read one entity without loading the file.
 */
export class OrgRepo {
  constructor(private kv: Deno.Kv) {}

  async meta(): Promise<OrgMeta | null> {
    return (await this.kv.get<OrgMeta>(META_KEY)).value;
  }

  async secretQuestion(oid: string): Promise<SecretQuestion | null> {
    return (await this.kv.get<SecretQuestion>(["secretq", oid])).value;
  }

  async secretQuestions(): Promise<SecretQuestion[]> {
    return await this.list<SecretQuestion>("secretq");
  }

  async team(oid: string): Promise<Team | null> {
    return await this.get<Team>("team", oid);
  }

  /** One record of a reference collection by its key (oid, or value for currencies), or archived. */
  async get<T>(collection: string, key: string): Promise<T | null> {
    const [live, archived] = await this.kv.getMany<[T, T]>([
      [collection, key],
      [ARCHIVED, collection, key],
    ]);
    return live.value ?? archived.value;
  }

  /**
   * Whether each record ([collection, key], at most 10) is in the organisation as it is now,
   * not only archived: one store read.
   */
  async live(refs: [string, string][]): Promise<boolean[]> {
    if (!refs.length) return [];
    return (await this.kv.getMany(refs)).map((e) => e.versionstamp !== null);
  }

  /** The archived records of one collection (removed, still named by open requests). */
  async archived<T>(collection: string): Promise<T[]> {
    return await listValues<T>(this.kv, [ARCHIVED, collection]);
  }

  /** Every record of one reference collection, in key order. */
  async list<T>(collection: string): Promise<T[]> {
    return await listValues<T>(this.kv, [collection]);
  }
}
