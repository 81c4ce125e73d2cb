import { CodeRepo } from "./codes.ts";
import { DeviceRepo } from "./devices.ts";
import { OrgRepo } from "./org.ts";
import { RateLimitRepo } from "./rate_limits.ts";
import { UserRepo } from "./users.ts";

/** One repository per entity, all over the same Deno KV. */
export interface Store {
  kv: Deno.Kv;
  users: UserRepo;
  devices: DeviceRepo;
  codes: CodeRepo;
  rateLimits: RateLimitRepo;
  org: OrgRepo;
}

export function createStore(kv: Deno.Kv): Store {
  return {
    kv,
    users: new UserRepo(kv),
    devices: new DeviceRepo(kv),
    codes: new CodeRepo(kv),
    rateLimits: new RateLimitRepo(kv),
    org: new OrgRepo(kv),
  };
}
