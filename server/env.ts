import type { Config } from "./config.ts";
import type { MailTransport } from "./mail/transport.ts";
import type { OutboxTransport } from "./mail/outbox.ts";
import type { Store } from "./store/mod.ts";
import type { EventBus } from "./domain/events.ts";
import type { Device } from "./store/devices.ts";
import type { User } from "./store/users.ts";

/** Everything createApp needs, injected so tests can build an app on `:memory:` KV. */
export interface Deps {
  config: Config;
  store: Store;
  mail: MailTransport;
  /** Present only with the outbox transport (demo set-up). */
  outbox?: OutboxTransport;
  events: EventBus;
  now: () => number;
}

export interface AuthContext {
  user: User;
  device: Device;
}

export interface AppEnv {
  Variables: {
    auth: AuthContext;
    deviceId: string;
    deps: Deps;
  };
}
