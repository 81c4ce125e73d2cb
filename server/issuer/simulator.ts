/**
 * The embedded card issuer (spec §3 Card): a simulator on Deno KV, under `["issuer", …]` only
 * (layout in records.ts). It is the one place a full card number and CVC exist, and they exist
 * in KV only sealed (vault.ts). Every change of a card is a versioned KV write retried on
 * conflict, so purchases' authorizations can move `amountSpent` the same way.
 */
import {
  type CardDetails,
  type CreateCardParams,
  type IssuedCard,
  type Issuer,
  type RevealSession,
} from "./issuer.ts";
import { IssuerError } from "./errors.ts";
import { generateCvc, generatePan } from "./pan.ts";
import { checkNotPast, checkOrder, fingerprint, isDay, utcDay } from "./params.ts";
import {
  cardDetails,
  type CardRecord,
  dueIndex,
  fundLines,
  type IdemRecord,
  isSessionId,
  isToken,
  K,
  newRecord,
  newSessionId,
  newToken,
  nextDue,
  PREFIX,
  type RevealRecord,
  toView,
} from "./records.ts";
import { seal, type Sealed, unseal } from "./vault.ts";
import type {
  AuthorizeParams,
  CaptureParams,
  RefundParams,
  ReverseParams,
} from "./authorization.ts";
import { Lifecycle } from "./authorizations.ts";
import { checkRates, DEFAULT_RATES, type RateTable } from "./fx.ts";
import * as threeDS from "./three_ds.ts";
import { sha256 } from "./encoding.ts";

export interface SimulatorDeps {
  kv: Deno.Kv;
  /** The vault key (key.ts): AES-GCM-256, non-extractable. */
  key: CryptoKey;
  /** Epoch ms; injected so tests move time. */
  now: () => number;
  /** How long a reveal session may wait for its redeem; 60 s by default (Airwallex: 1 min). */
  revealTtlMs?: number;
  /** The rate table of purchases in other currencies; DEFAULT_RATES unless given. */
  rates?: RateTable;
}

/** Versioned writes on one card give up after this many lost races (then `conflict`). */
const MAX_TRIES = 100;

export class IssuerSimulator implements Issuer {
  readonly kind = "simulator";
  readonly #kv: Deno.Kv;
  readonly #key: CryptoKey;
  readonly #now: () => number;
  readonly #revealTtl: number;
  readonly #rates: RateTable;
  readonly #life: Lifecycle;

  constructor(deps: SimulatorDeps) {
    this.#kv = deps.kv;
    this.#key = deps.key;
    this.#now = deps.now;
    this.#revealTtl = deps.revealTtlMs ?? 60_000;
    if (!(this.#revealTtl > 0)) throw new RangeError("revealTtlMs must be positive");
    this.#rates = checkRates(deps.rates ?? DEFAULT_RATES);
    this.#life = new Lifecycle({ kv: deps.kv, key: deps.key, now: deps.now, rates: this.#rates });
  }

  // Purchases: the card lifecycle (authorizations.ts) and finding cards as merchants name them.
  authorize(p: AuthorizeParams) {
    return this.#life.authorize(p);
  }
  capture(p: CaptureParams) {
    return this.#life.capture(p);
  }
  reverse(p: ReverseParams) {
    return this.#life.reverse(p);
  }
  refund(p: RefundParams) {
    return this.#life.refund(p);
  }
  getAuthorization(id: string) {
    return this.#life.get(id);
  }
  listAuthorizations(token: string, opts: { limit?: number } = {}) {
    return isToken(token)
      ? this.#life.list(K.cardAuthPrefix(token), opts.limit)
      : Promise.resolve([]);
  }
  authorizationChanges(since: number, opts: { after?: string; limit?: number } = {}) {
    return this.#life.changes(since, opts);
  }
  recentAuthorizations(limit = 50) {
    return this.#life.list(K.authTimePrefix, limit);
  }
  rates(): RateTable {
    return structuredClone(this.#rates);
  }

  async listCards(limit = 100): Promise<IssuedCard[]> {
    const n = Math.max(1, Math.min(1000, Math.floor(limit)));
    const out: IssuedCard[] = [];
    for await (const e of this.#kv.list<CardRecord>({ prefix: [PREFIX, "card"] })) {
      out.push(toView(e.value));
    }
    return out.sort((a, b) => b.createdAt - a.createdAt).slice(0, n);
  }

  async findCardsByLast4(last4: string): Promise<string[]> {
    if (!/^\d{4}$/.test(last4)) return [];
    return [...((await this.#kv.get<string[]>(K.last4(last4))).value ?? [])];
  }

  async findCardByPan(pan: string): Promise<string | null> {
    if (typeof pan !== "string" || !/^\d{12,19}$/.test(pan)) return null;
    return await this.#tokenOfPan(await this.findCardsByLast4(pan.slice(-4)), pan);
  }

  /**
   * One atomic write makes the card, its vault entry, its last-4 entry and the idempotency
   * record, checked on the idempotency key being absent (so racing calls with one key make one
   * card; the losers answer the winner's) and on the last-4 entry not having changed since the
   * new number was found unique in it.
   */
  async createCard(params: CreateCardParams): Promise<IssuedCard> {
    const order = checkOrder(params);
    const fp = await fingerprint(order);
    const idemKey = K.idem(order.idempotencyKey);
    for (let i = 0; i < MAX_TRIES; i++) {
      const idem = await this.#kv.get<IdemRecord>(idemKey);
      if (idem.value) return await this.#replay(idem.value, fp);
      const now = this.#now();
      const today = utcDay(now);
      checkNotPast(order, today);
      const pan = generatePan(order.brand);
      const last4 = pan.slice(-4);
      const bucket = await this.#kv.get<string[]>(K.last4(last4));
      const tokens = bucket.value ?? [];
      if (await this.#tokenOfPan(tokens, pan)) continue; // drawn twice: draw again
      const token = newToken();
      const sealed = await seal(this.#key, token, { pan, cvc: generateCvc() });
      const rec = newRecord(order, token, last4, now, today);
      const op = this.#kv.atomic()
        .check(idem)
        .check(bucket)
        .set(K.card(token), rec)
        .set(K.vault(token), sealed)
        .set(K.last4(last4), [...tokens, token])
        .set(idemKey, { token, fingerprint: fp, createdAt: now } satisfies IdemRecord);
      const due = nextDue(rec);
      if (due) op.set(K.due(due, token), null);
      if ((await op.commit()).ok) return toView(rec);
    }
    throw new IssuerError("conflict", "createCard lost too many races; retry");
  }

  async #replay(idem: IdemRecord, fp: string): Promise<IssuedCard> {
    if (idem.fingerprint !== fp) {
      throw new IssuerError(
        "idempotency_conflict",
        "This idempotencyKey was first used with other parameters",
      );
    }
    const card = await this.getCard(idem.token);
    if (!card) throw new IssuerError("card_not_found", "The card of this idempotencyKey is gone");
    return card;
  }

  /** The one of `tokens` (cards with the same last 4) that has this number, if any. */
  async #tokenOfPan(tokens: string[], pan: string): Promise<string | null> {
    for (let i = 0; i < tokens.length; i += 10) {
      const entries = await this.#kv.getMany<Sealed[]>(tokens.slice(i, i + 10).map(K.vault));
      for (const e of entries) {
        const token = e.key[2] as string;
        if (e.value && (await unseal(this.#key, token, e.value)).pan === pan) return token;
      }
    }
    return null;
  }

  setThreeDSPassword(holderId: string, password: string, slot: "pending" | "current") {
    return threeDS.setPassword(this.#kv, this.#key, holderId, password, slot);
  }

  promoteThreeDSPassword(holderId: string) {
    return threeDS.promote(this.#kv, holderId);
  }

  revealThreeDSPassword(holderId: string) {
    return threeDS.reveal(this.#kv, this.#key, holderId);
  }

  async getCard(token: string): Promise<IssuedCard | null> {
    if (!isToken(token)) return null;
    const e = await this.#kv.get<CardRecord>(K.card(token));
    return e.value ? toView(e.value) : null;
  }

  async getCards(tokens: readonly string[]): Promise<(IssuedCard | null)[]> {
    const parts: Promise<(IssuedCard | null)[]>[] = [];
    for (let i = 0; i < tokens.length; i += 10) {
      const part = tokens.slice(i, i + 10);
      const keys = part.filter(isToken).map(K.card);
      parts.push(
        this.#kv.getMany<CardRecord[]>(keys).then((es) => {
          const found = new Map(
            es.flatMap((e) => e.value ? [[e.value.token, toView(e.value)]] : []),
          );
          return part.map((t) => found.get(t) ?? null);
        }),
      );
    }
    return (await Promise.all(parts)).flat();
  }

  /**
   * Applies `change` to the card with a version check, retried when another write got in
   * first; `change` answers null for "nothing to do" and throws to refuse. Keeps the due index
   * in step with the record.
   */
  async #update(
    token: string,
    change: (r: CardRecord, now: number) => CardRecord | null,
  ): Promise<IssuedCard> {
    for (let i = 0; i < MAX_TRIES; i++) {
      const e = isToken(token) ? await this.#kv.get<CardRecord>(K.card(token)) : null;
      if (!e?.value) throw new IssuerError("card_not_found", "No card with this token");
      const now = this.#now();
      const next = change(e.value, now);
      if (!next) return toView(e.value);
      next.updatedAt = now;
      const op = this.#kv.atomic().check(e).set(K.card(token), next);
      dueIndex(op, e.value, next);
      if ((await op.commit()).ok) return toView(next);
    }
    throw new IssuerError("conflict", "Too many concurrent changes to this card; retry");
  }

  async fundDue(token: string, today: string): Promise<IssuedCard> {
    if (!isDay(today)) throw new IssuerError("invalid_request", "today must be YYYY-MM-DD");
    return await this.#update(token, (r, now) => fundLines(r, today, now));
  }

  async fundAllDue(today: string): Promise<number> {
    if (!isDay(today)) throw new IssuerError("invalid_request", "today must be YYYY-MM-DD");
    const tokens: string[] = [];
    for await (const e of this.#kv.list({ prefix: K.duePrefix }, { batchSize: 1000 })) {
      if ((e.key[2] as string) > today) break; // keys sort by day
      tokens.push(e.key[3] as string);
    }
    let n = 0;
    for (const token of tokens) {
      const before = await this.getCard(token);
      const after = await this.fundDue(token, today);
      if (before && after.amountFunded !== before.amountFunded) n++;
    }
    return n;
  }

  async freeze(token: string): Promise<IssuedCard> {
    return await this.#update(token, (r) => {
      if (r.status === "closed") throw closed("frozen");
      return r.status === "frozen" ? null : { ...r, status: "frozen" };
    });
  }

  async unfreeze(token: string): Promise<IssuedCard> {
    return await this.#update(token, (r) => {
      if (r.status === "closed") throw closed("unfrozen");
      return r.status === "active" ? null : { ...r, status: "active" };
    });
  }

  async close(token: string): Promise<IssuedCard> {
    return await this.#update(
      token,
      (r, now) => r.status === "closed" ? null : { ...r, status: "closed", closedAt: now },
    );
  }

  async createRevealSession(token: string): Promise<RevealSession> {
    const card = await this.getCard(token);
    if (!card) throw new IssuerError("card_not_found", "No card with this token");
    usable(card.status);
    const sessionId = newSessionId();
    const expiresAt = this.#now() + this.#revealTtl;
    const rec: RevealRecord = { token, expiresAt };
    // KV's own expiry only sweeps; the clock decides (a minute of slack for clock skew).
    await this.#kv.set(K.reveal(await sha256(sessionId)), rec, {
      expireIn: this.#revealTtl + 60_000,
    });
    return { sessionId, expiresAt };
  }

  /** Spent by an atomic delete checked on the session's version: one redeem wins. */
  async redeemRevealSession(sessionId: string): Promise<CardDetails> {
    const invalid = (why: string) => new IssuerError("session_invalid", `Reveal session ${why}`);
    if (!isSessionId(sessionId)) throw invalid("unknown");
    const key = K.reveal(await sha256(sessionId));
    const e = await this.#kv.get<RevealRecord>(key);
    if (!e.value) throw invalid("unknown or already used");
    if (!(await this.#kv.atomic().check(e).delete(key).commit()).ok) {
      throw invalid("already used");
    }
    if (this.#now() > e.value.expiresAt) throw invalid("expired");
    const { token } = e.value;
    const [card, vault] = await this.#kv.getMany<[CardRecord, Sealed]>([
      K.card(token),
      K.vault(token),
    ]);
    if (!card.value || !vault.value) {
      throw new IssuerError("card_not_found", "No card with this token");
    }
    usable(card.value.status);
    const { pan, cvc } = await unseal(this.#key, token, vault.value);
    return cardDetails(token, pan, cvc, card.value);
  }
}

const closed = (what: string) =>
  new IssuerError("card_closed", `The card is closed and cannot be ${what}`);

/** Reveals need an active card. */
function usable(status: CardRecord["status"]) {
  if (status === "closed") throw closed("revealed");
  if (status === "frozen") throw new IssuerError("card_frozen", "The card is frozen");
}
