import type { Config } from "../config.ts";
import type { MailTransport } from "../mail/transport.ts";
import type { OutboxView } from "../mail/outbox.ts";
import type { MessageQueue } from "../messages/queue.ts";
import type { Transport } from "../messages/types.ts";
import type { Issuer } from "../issuer/mod.ts";
import type { Store } from "../store/mod.ts";
import type { EventBus } from "./events.ts";
import type { Device } from "../store/devices.ts";
import type { User } from "../store/users.ts";

/** Everything createApp needs, injected so tests can build an app on `:memory:` KV. */
export interface Deps {
  config: Config;
  store: Store;
  /**
   * The durable outbox (docs/messages.md): every message is added to the atomic write of the state
   * change that causes it (`messages.add(op, …)`) and delivered by the worker main.ts starts.
   */
  messages: MessageQueue;
  /** The email transport (the worker's; never called directly by the domain). */
  mail: MailTransport;
  /** The SMS transport (the worker's). */
  sms: Transport;
  /** The dev outbox view: present only when a channel uses the outbox transport (demo). */
  outbox?: OutboxView;
  /** Test hooks: a fault injected right before a domain write commits. */
  faults?: {
    beforeCommit?: (what: string) => void | Promise<void>;
    /** Right after a write committed, before anything else (the crash tests kill here). */
    afterCommit?: (what: string) => void | Promise<void>;
  };
  /** The card issuer (server/issuer/): the embedded simulator unless configured otherwise. */
  issuer: Issuer;
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
    /** CSP hashes of the inline styles of the page answered (server/routes/static.ts). */
    styleHashes?: string[];
    /** CSP hashes of the inline scripts of the page answered (server/routes/static.ts). */
    scriptHashes?: string[];
    /** The `error` code of a refusal (4xx) answered by onError, for the request log line. */
    errorCode?: string;
    errorMessage?: string;
  };
}
