/**
 * The simulator's card lifecycle (spec §3 Transaction statuses): authorize, capture, reverse,
 * refund. Every call is one KV atomic operation checked on the versions it read (the card, the
 * authorization, the idempotency key), retried from a fresh read when another write got in first;
 * so 50 concurrent purchases against a card that affords 10 approve exactly 10 and the available
 * amount never goes below zero. Captures, reversals and refunds convert with the terms the
 * authorization locked, telescoping (each event takes conv(total after) − conv(total before)), so
 * the card-currency parts always add up to the converted whole.
 */
import type {
  Authorization,
  AuthorizeParams,
  CaptureParams,
  RefundParams,
  ReverseParams,
} from "./authorization.ts";
import {
  type AuthRecord,
  checkAuthorize,
  checkCurrency,
  checkKey,
  checkMerchant,
  decisionRecord,
  fingerprint,
  isMinor,
  MAX_EVENTS,
  type OpRecord,
  putChanged,
  putNew,
  toAuthorization,
} from "./auth_records.ts";
import {
  cardStep,
  type DecideDeps,
  detailsStep,
  price,
  type SecretSteps,
  spendStep,
  threeDSStep,
} from "./decide.ts";
import { backoff, CardLocks } from "./card_lock.ts";
import { captured, checkAmount, refunded, reversed } from "./events.ts";
import { convert, termsFor } from "./fx.ts";
import { IssuerError } from "./errors.ts";
import { utcDay } from "./params.ts";
import {
  type CardRecord,
  dueIndex,
  fundLines,
  isAuthId,
  isToken,
  K,
  newAuthId,
} from "./records.ts";

const MAX_TRIES = 200;
const busy = () => new IssuerError("conflict", "Too many concurrent changes to this card; retry");
const state = (m: string) => new IssuerError("invalid_state", m);
const bad = (m: string) => new IssuerError("invalid_request", m);

const checks = (e: Deno.KvEntryMaybe<OpRecord> | null) => (e ? [e] : []);

/**
 * What the card has spent once `back` (minor units) comes back to it: a reversal, a refund or a
 * merchant's credit. Never below zero, so the available amount (funded − spent) never rises
 * above what was funded, itself at most the allocation (spec §3 Card amounts): a credit beyond
 * what the card spent is recorded but adds nothing to spend.
 */
const unspent = (card: CardRecord, back: number) => Math.max(0, card.amountSpent - back);

type Change = (a: AuthRecord, now: number) => { a: AuthRecord; spent: number };

export class Lifecycle {
  readonly #locks = new CardLocks();

  constructor(private d: DecideDeps) {}

  async authorize(params: AuthorizeParams): Promise<Authorization> {
    const p = checkAuthorize(params);
    const fp = p.idempotencyKey ? await fingerprint("authorize", p) : "";
    const steps: SecretSteps = {};
    const id = newAuthId();
    return await this.#locks.run(p.token, () => this.#decide(p, fp, steps, id));
  }

  async #decide(p: AuthorizeParams, fp: string, steps: SecretSteps, id: string) {
    for (let i = 0; i < MAX_TRIES; i++) {
      const prior = await this.#replay(p.idempotencyKey, fp);
      if (prior.answer) return prior.answer;
      const e = await this.d.kv.get<CardRecord>(K.card(p.token));
      if (!e.value) throw new IssuerError("card_not_found", "No card with this token");
      const now = this.d.now();
      const card = fundLines(e.value, utcDay(now), now) ?? { ...e.value };
      let code = cardStep(card, utcDay(now));
      if (!code) {
        if (!("details" in steps)) steps.details = await detailsStep(this.d, card, p);
        code = steps.details ?? null;
      }
      if (!code) code = (steps.threeDS ??= await threeDSStep(this.d, card, p)).code;
      const spend = code
        ? { code, ...price(this.d.rates, card, p) }
        : spendStep(this.d.rates, card, p);
      const rec = decisionRecord(id, card, p, {
        ...spend,
        threeDS: steps.threeDS?.outcome ?? "not_requested",
      }, now);
      if (rec.approved) card.amountSpent += rec.amount;
      card.updatedAt = now;
      const op = this.d.kv.atomic().check(e, ...checks(prior.entry)).set(K.card(p.token), card);
      dueIndex(op, e.value, card);
      putNew(op, rec);
      if (p.idempotencyKey) op.set(K.op(p.idempotencyKey), this.#op(id, fp, now));
      if ((await op.commit()).ok) return toAuthorization(rec);
      await backoff(i);
    }
    throw busy();
  }

  async capture(p: CaptureParams): Promise<Authorization> {
    checkAmount(p.amount);
    return await this.#change("capture", p, p.authorizationId, (a, now) => captured(a, p, now));
  }

  async reverse(p: ReverseParams): Promise<Authorization> {
    checkAmount(p.amount);
    return await this.#change("reverse", p, p.authorizationId, (a, now) => reversed(a, p, now));
  }

  /** Linked: a refund of what was captured. Unlinked: a credit, recorded as its own record. */
  async refund(p: RefundParams): Promise<Authorization> {
    checkAmount(p.amount);
    if (p.authorizationId === undefined) return await this.#credit(p);
    return await this.#change("refund", p, p.authorizationId, (a, now) => refunded(a, p, now));
  }

  /** A merchant's credit to a card (any state: closed cards still take refunds). */
  async #credit(p: RefundParams): Promise<Authorization> {
    if (!isToken(p.token)) throw new IssuerError("card_not_found", "No card with this token");
    if (!isMinor(p.amount)) throw bad("amount is required for a refund without authorization");
    const q = {
      token: p.token,
      amount: p.amount,
      currency: checkCurrency(p.currency),
      merchant: checkMerchant(p.merchant),
      idempotencyKey: checkKey(p.idempotencyKey),
    };
    const fp = q.idempotencyKey ? await fingerprint("credit", q) : "";
    const id = newAuthId();
    return await this.#locks.run(q.token, async () => {
      for (let i = 0; i < MAX_TRIES; i++) {
        const prior = await this.#replay(q.idempotencyKey, fp);
        if (prior.answer) return prior.answer;
        const e = await this.d.kv.get<CardRecord>(K.card(q.token));
        if (!e.value) throw new IssuerError("card_not_found", "No card with this token");
        const terms = q.currency === e.value.currency
          ? null
          : termsFor(this.d.rates, q.currency, e.value.currency);
        if (q.currency !== e.value.currency && !terms) {
          throw bad("currency is not in the rate table");
        }
        const now = this.d.now();
        const base = decisionRecord(id, e.value, q, {
          code: null,
          terms,
          amount: convert(terms, q.amount),
          threeDS: "not_requested",
        }, now);
        const rec: AuthRecord = {
          ...base,
          kind: "refund",
          status: "closed",
          amountHeld: 0,
          merchantRefunded: q.amount,
          amountRefunded: base.amount,
          history: [{ type: "refund", at: now, merchantAmount: q.amount, amount: base.amount }],
        };
        const card = { ...e.value, amountSpent: unspent(e.value, rec.amount), updatedAt: now };
        const op = this.d.kv.atomic().check(e, ...checks(prior.entry)).set(K.card(q.token), card);
        putNew(op, rec);
        if (q.idempotencyKey) op.set(K.op(q.idempotencyKey), this.#op(id, fp, now));
        if ((await op.commit()).ok) return toAuthorization(rec);
        await backoff(i);
      }
      throw busy();
    });
  }

  /** One event on an authorization, written with its card's amounts in one checked write. */
  async #change(kind: string, p: { idempotencyKey?: string }, id: string, change: Change) {
    if (!isAuthId(id)) throw new IssuerError("authorization_not_found", "No such authorization");
    const key = checkKey(p.idempotencyKey);
    const fp = key ? await fingerprint(kind, p) : "";
    const first = await this.d.kv.get<AuthRecord>(K.auth(id));
    if (!first.value) throw new IssuerError("authorization_not_found", "No such authorization");
    return await this.#locks.run(first.value.cardToken, async () => {
      for (let i = 0; i < MAX_TRIES; i++) {
        const prior = await this.#replay(key, fp);
        if (prior.answer) return prior.answer;
        const ae = await this.d.kv.get<AuthRecord>(K.auth(id));
        if (!ae.value) throw new IssuerError("authorization_not_found", "No such authorization");
        if (ae.value.history.length >= MAX_EVENTS) {
          throw state("This authorization has too many events");
        }
        const ce = await this.d.kv.get<CardRecord>(K.card(ae.value.cardToken));
        if (!ce.value) throw new IssuerError("card_not_found", "No card with this token");
        const now = this.d.now();
        const { a, spent } = change(ae.value, now);
        const rec: AuthRecord = { ...a, updatedAt: now, version: ae.value.version + 1 };
        const op = putChanged(
          this.d.kv.atomic().check(ae, ce, ...checks(prior.entry)),
          ae.value,
          rec,
        );
        if (spent !== 0) {
          op.set(K.card(ae.value.cardToken), {
            ...ce.value,
            amountSpent: unspent(ce.value, -spent),
            updatedAt: now,
          });
        }
        if (key) op.set(K.op(key), this.#op(id, fp, now));
        if ((await op.commit()).ok) return toAuthorization(rec);
        await backoff(i);
      }
      throw busy();
    });
  }

  /** A keyed call seen before answers what it made; its entry is checked by the write. */
  async #replay(key: string | undefined, fp: string): Promise<{
    entry: Deno.KvEntryMaybe<OpRecord> | null;
    answer: Authorization | null;
  }> {
    if (!key) return { entry: null, answer: null };
    const entry = await this.d.kv.get<OpRecord>(K.op(key));
    if (!entry.value) return { entry, answer: null };
    if (entry.value.fingerprint !== fp) {
      throw new IssuerError(
        "idempotency_conflict",
        "This idempotencyKey was used with other parameters",
      );
    }
    const a = await this.d.kv.get<AuthRecord>(K.auth(entry.value.id));
    if (!a.value) throw new IssuerError("authorization_not_found", "No such authorization");
    return { entry, answer: toAuthorization(a.value) };
  }

  async get(id: string): Promise<Authorization | null> {
    if (!isAuthId(id)) return null;
    const e = await this.d.kv.get<AuthRecord>(K.auth(id));
    return e.value ? toAuthorization(e.value) : null;
  }

  /** Authorizations named by an index, newest first (ids are the index keys' last part). */
  async list(prefix: Deno.KvKey, limit = 100): Promise<Authorization[]> {
    const n = Math.max(1, Math.min(1000, Math.floor(limit)));
    const ids: string[] = [];
    for await (const e of this.d.kv.list({ prefix }, { reverse: true, limit: n })) {
      ids.push(e.key.at(-1) as string);
    }
    const out: Authorization[] = [];
    for (let i = 0; i < ids.length; i += 10) {
      const got = await this.d.kv.getMany<AuthRecord[]>(ids.slice(i, i + 10).map(K.auth));
      for (const e of got) if (e.value) out.push(toAuthorization(e.value));
    }
    return out;
  }

  /**
   * The change feed: authorizations whose last change is at or after `since`, oldest change
   * first, `limit` a page; `after` (a previous page's `next`) continues where it stopped.
   */
  async changes(
    since: number,
    opts: { after?: string; limit?: number } = {},
  ): Promise<{ authorizations: Authorization[]; next: string | null }> {
    const n = Math.max(1, Math.min(1000, Math.floor(opts.limit ?? 100)));
    const from = opts.after ? parseCursor(opts.after) : null;
    const start = from ? K.authChanged(from.at, from.id) : [...K.authChangedPrefix, since];
    const ids: { at: number; id: string }[] = [];
    const it = this.d.kv.list({ prefix: K.authChangedPrefix, start }, { limit: n + 1 });
    for await (const e of it) {
      const at = e.key[2] as number, id = e.key[3] as string;
      if (from && at === from.at && id === from.id) continue; // start is inclusive
      if (ids.length < n) ids.push({ at, id });
      else break;
    }
    const out: Authorization[] = [];
    for (let i = 0; i < ids.length; i += 10) {
      const got = await this.d.kv.getMany<AuthRecord[]>(
        ids.slice(i, i + 10).map((x) => K.auth(x.id)),
      );
      for (const e of got) if (e.value) out.push(toAuthorization(e.value));
    }
    const last = ids.at(-1);
    return { authorizations: out, next: ids.length === n && last ? `${last.at}:${last.id}` : null };
  }

  #op(id: string, fingerprint: string, at: number): OpRecord {
    return { id, fingerprint, at };
  }
}

function parseCursor(c: string): { at: number; id: string } {
  const m = /^(\d{1,16}):(.{1,100})$/.exec(c);
  if (!m || !isAuthId(m[2])) throw bad("after must be the next of a previous page");
  return { at: Number(m[1]), id: m[2] };
}
