/**
 * Domain changes as events (engineering.md §1: push and the change channel deliver them). Handlers
 * run after the write that caused the event has committed; a failing handler is logged, never
 * rethrown into the request that caused it.
 */
import { addJob } from "../jobs/jobs.ts";
export type DomainEvent =
  | { type: "activation.sent"; userOid: string; email: string }
  | { type: "device.activated"; userOid: string; deviceId: string }
  | { type: "device.unregistered"; userOid: string; deviceId: string; reason: string }
  | { type: "push.registered"; userOid: string; deviceId: string }
  | { type: "request.created"; userOid: string; requestOid: string }
  | { type: "request.submitted"; userOid: string; requestOid: string; approvalOid: string }
  | { type: "request.modified"; userOid: string; requestOid: string; reissued: boolean }
  | { type: "request.cancelled"; userOid: string; requestOid: string }
  | { type: "request.closed"; userOid: string; requestOid: string }
  | { type: "request.decided"; userOid: string; requestOid: string; statusCode: string }
  | {
    type: "approval.opened";
    approvalOid: string;
    requestOid: string;
    level: number;
    teamOids: string[];
  }
  | { type: "approval.cancelled"; approvalOid: string; requestOid: string }
  | { type: "comment.added"; userOid: string; sourceOid: string; commentOid: string }
  | { type: "comment.deleted"; userOid: string; sourceOid: string; commentOid: string }
  | {
    type: "card.issued" | "card.revealed" | "card.frozen" | "card.unfrozen";
    userOid: string;
    requestOid: string;
  }
  | { type: "secure.pin_sent" | "secure.saved"; userOid: string }
  /** A card purchase the issuer authorised or refused (spec §1: pushed to the card's author). */
  | { type: "card.purchase"; userOid: string; transactionOid: string; approved: boolean }
  | {
    type: "transactions.flipped";
    userOid: string;
    requestOid: string;
    fromOid: string;
    transactionOids: string[];
  };

type Handler = (e: DomainEvent) => void | Promise<void>;

/**
 * The jobs wing's kind (server/jobs/) that turns an event into the notifications it causes
 * (server/push/mod.ts): written by `notifyAfter` in the atomic write of the change itself, so a
 * process killed right after the commit still notifies (any process runs the job).
 */
export const NOTIFY = "event.notify";

/** The events whose notifications are durable jobs (push/notify.ts noticesFor answers them). */
export type NotifyEvent = Extract<
  DomainEvent,
  { type: "approval.opened" | "request.decided" | "card.purchase" }
>;

/** Adds to `op` the job that notifies the people `e` concerns, once `op` commits. */
export function notifyAfter(op: Deno.AtomicOperation, now: number, e: NotifyEvent): void {
  addJob(op, now, NOTIFY, e);
}

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
