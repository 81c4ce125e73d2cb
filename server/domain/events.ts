/**
 * Domain changes as events (GUIDE: push will later deliver them). Handlers run after the
 * write that caused the event has committed; a failing handler is logged, never rethrown
 * into the request that caused it.
 */
export type DomainEvent =
  | { type: "activation.sent"; userOid: string; email: string }
  | { type: "device.activated"; userOid: string; deviceId: string }
  | { type: "device.unregistered"; userOid: string; deviceId: string; reason: string }
  | { type: "push.registered"; userOid: string; deviceId: string };

type Handler = (e: DomainEvent) => void | Promise<void>;

export class EventBus {
  private handlers: Handler[] = [];
  readonly recent: DomainEvent[] = [];

  subscribe(h: Handler): () => void {
    this.handlers.push(h);
    return () => (this.handlers = this.handlers.filter((x) => x !== h));
  }

  async publish(e: DomainEvent): Promise<void> {
    this.recent.push(e);
    if (this.recent.length > 100) this.recent.shift();
    for (const h of this.handlers) {
      try {
        await h(e);
      } catch (err) {
        console.error(`event handler failed for ${e.type}:`, err);
      }
    }
  }
}
