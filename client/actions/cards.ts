import { noteCommentUpload } from "./comment_upload.ts";
import { Card, cards as api, RevealedCard } from "../shared/contract/cards.ts";
import { requests as reqApi } from "../shared/contract/requests.ts";
import { ApiError, call, NetworkError } from "../api/http.ts";
import { t } from "../i18n/index.ts";
import { CARD_REVEAL_MS, maskedNumber } from "../lib/cards.ts";
import { newRevealKey, openWithKey } from "../shared/reveal_cipher.ts";
import { detail, requestRows } from "../state/requests.ts";
import {
  askConfirm,
  closeSheet,
  openSheet,
  progress,
  pushBanner,
  sheets,
  showNotice,
} from "../state/ui.ts";
import { cardDetail, type CardView, revealedCard, walletFilter } from "../state/wallet.ts";
import { busy } from "./busy.ts";
import { dropComment, sendComment } from "./comments.ts";
import { readCache, writeCache } from "./cache.ts";
import { lookup } from "./lookups.ts";
import { messageOf } from "./messages.ts";
import { applied } from "./request_applied.ts";

// Cards (spec §2 Wallet and Card detail, §4 Card states, §8 failed card fetch): the masked card
// through the encrypted cache, reveal for 30 s, copy, freeze/unfreeze, close and cancel, and
// generation from the request detail (after the 3-D Secure setup when it is missing).

/** Cards are cached in QCDB's `lists` store, masked (never a card number nor a CVC). */
const cacheKey = (oid: string) => `card:${oid}`;

/** What may be cached of a card: the issuer's answer is masked already; keep it so. */
function masked(card: Card): Card {
  return { ...card, cardNumber: maskedNumber(card.last4), cvc: "•••" };
}

function setView(oid: string, p: Partial<CardView>): void {
  if (cardDetail.value?.oid === oid) cardDetail.value = { ...cardDetail.value, ...p };
}

/** The card status changed: the wallet row follows at once (the list is re-read after). */
function rowFollows(card: Card): void {
  requestRows.value = requestRows.value.map((r) =>
    r.oid === card.oid
      ? {
        ...r,
        cardStatusCode: card.cardStatusCode,
        openCard: card.cardStatusCode !== "Closed",
        // spec §2 Wallet: the row shows what is left on the card, nothing once it has ended.
        cardAvailable: card.cardStatusCode === "Closed" ? null : card.amountAvailable,
      }
      : r
  );
}

async function showCard(card: Card): Promise<void> {
  setView(card.oid, { card, fallback: null, source: "network" });
  rowFollows(card);
  await writeCache("lists", cacheKey(card.oid), masked(card));
}

/** spec §2: a wallet row opens the card detail; the cached card shows first (spec §1). */
export async function openCard(oid: string, fresh?: Card): Promise<void> {
  maskCard();
  cardDetail.value = {
    oid,
    row: requestRows.value.find((r) => r.oid === oid) ?? null,
    card: fresh ?? null,
    fallback: null,
    source: fresh ? "network" : null,
    comments: [],
  };
  openSheet({ kind: "card", oid });
  await Promise.all([fresh ? Promise.resolve() : loadCard(oid), loadCardComments(oid)]);
}

/**
 * The card, cache first. spec §8: when the card cannot be fetched, the obfuscated card is
 * asked for; when that fails too, the cached card (or the row) gives a masked number.
 */
export async function loadCard(oid: string, networkFirst = false): Promise<void> {
  if (!networkFirst) {
    const cached = await readCache("lists", cacheKey(oid), Card);
    if (cached && !cardDetail.value?.card) setView(oid, { card: cached, source: "cache" });
  }
  let failure: unknown;
  try {
    await showCard((await call(api.card, { query: { oid } })).card);
    return;
  } catch (err) {
    failure = err;
  }
  try {
    const { card } = await call(api.obfuscated, { query: { oid } });
    setView(oid, { fallback: card, source: "obfuscated" });
  } catch {
    if (!cardDetail.value?.card) {
      const cached = await readCache("lists", cacheKey(oid), Card);
      setView(oid, cached ? { card: cached, source: "cache" } : { source: "masked" });
    } else setView(oid, { source: "cache" });
  }
  pushBanner(failure instanceof NetworkError ? t("common.offline") : messageOf(failure));
}

async function loadCardComments(oid: string): Promise<void> {
  await lookup(
    "lists",
    `comments:${oid}`,
    reqApi.comments.response,
    () => call(reqApi.comments, { query: { oid } }),
    (d) => {
      noteCommentUpload(oid, d.commentUploadUrl);
      setView(oid, { comments: d.comments });
    },
  );
}

export function addCardComment(text: string): Promise<boolean> {
  const row = cardDetail.value?.row;
  return sendComment(
    cardDetail.value?.oid,
    text,
    "request.addComment",
    loadCardComments,
    row ? { id: row.id, archive: row.archive } : undefined,
  );
}

export function deleteCardComment(commentOid: string): Promise<void> {
  return dropComment(cardDetail.value?.oid, commentOid, loadCardComments);
}

/**
 * After a refresh the open card is read again: its available amount follows the purchases
 * made since (spec §3 Card amountAvailable).
 */
export async function refreshOpenCard(): Promise<void> {
  const open = sheets.value.filter((s) => s.open && s.sheet.kind === "card");
  const top = open[open.length - 1]?.sheet;
  if (top?.kind === "card" && cardDetail.value?.oid === top.oid) await loadCard(top.oid, true);
}

// ---- Reveal (spec §4: number and CVC for 30 s, then masked again) ----

let maskTimer: ReturnType<typeof setTimeout> | undefined;
let watchingVisibility = false;

/**
 * Asks the issuer for the card number and CVC, sealed for a fresh one-time key that never
 * leaves this function; decrypts them on the device and shows them for 30 s. They live in
 * a signal only: no cache, no storage.
 */
export async function revealCard(): Promise<void> {
  const d = cardDetail.value;
  if (!d?.card?.canReveal) return;
  const oid = d.oid;
  if (!watchingVisibility && typeof document !== "undefined") {
    // A phone put down or an app switch masks the card at once.
    document.addEventListener("visibilitychange", () => document.hidden && maskCard());
    watchingVisibility = true;
  }
  await busy(async () => {
    try {
      const key = newRevealKey();
      const r = await call(api.reveal, { query: { oid, key } });
      const opened = RevealedCard.safeParse(JSON.parse(await openWithKey(key, r.encryptedresult)));
      if (!opened.success) throw new Error("reveal: unexpected content");
      if (cardDetail.value?.oid !== oid) return; // the panel closed meanwhile
      const shown = { oid, ...opened.data, until: Date.now() + CARD_REVEAL_MS };
      revealedCard.value = shown;
      clearTimeout(maskTimer);
      maskTimer = setTimeout(() => {
        if (revealedCard.value === shown) revealedCard.value = null;
      }, CARD_REVEAL_MS);
    } catch (err) {
      pushBanner(
        err instanceof ApiError || err instanceof NetworkError
          ? messageOf(err)
          : t("card.revealFailed"),
      );
    }
  });
}

/** Masks the card again (the 30 s are up, Hide, the panel closed, the page hidden). */
export function maskCard(): void {
  clearTimeout(maskTimer);
  revealedCard.value = null;
}

/** spec §2 'copy card info': the number on the clipboard, and a word that says so. */
export async function copyCardNumber(): Promise<void> {
  const r = revealedCard.value;
  if (r) await copyText(r.pan, t("card.copied"));
}

/** The expiry ('MM/YY', as on the card) or the revealed CVC, copied like the number. */
export async function copyCardField(what: "expiry" | "cvc", expiry?: string): Promise<void> {
  const r = revealedCard.value;
  if (!r) return;
  if (what === "cvc") await copyText(r.cvc, t("card.cvcCopied"));
  else if (expiry) await copyText(expiry, t("card.expiryCopied"));
}

async function copyText(text: string, done: string): Promise<void> {
  try {
    if (!navigator.clipboard?.writeText) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    showNotice(done);
  } catch {
    showNotice(t("card.copyUnavailable"));
  }
}

/** The card panel closes: the revealed values go with it. */
export function closeCard(sheetId: number): void {
  maskCard();
  closeSheet(sheetId);
}

// ---- Freeze, unfreeze, close, cancel ----

/** Freeze (a frozen card shows as blocked) or unfreeze; shown once the server answered. */
export async function setFrozen(frozen: boolean): Promise<void> {
  const d = cardDetail.value;
  if (!d) return;
  await busy(async () => {
    progress.value = t(frozen ? "card.freezing" : "card.unfreezing");
    try {
      const { card } = await call(frozen ? api.freeze : api.unfreeze, { body: { oid: d.oid } });
      maskCard();
      await showCard(card);
      showNotice(t(frozen ? "card.frozenNotice" : "card.unfrozenNotice"));
    } catch (err) {
      pushBanner(messageOf(err));
    } finally {
      progress.value = null;
    }
  });
}

/**
 * spec §2 close card / cancel card, each confirmed (spec §4): pwaclose or pwacancel of its
 * request, which closes the card first. Closing switches the wallet filter to Closed.
 */
export function confirmCardEnd(how: "close" | "cancel"): void {
  const d = cardDetail.value;
  if (!d) return;
  const oid = d.oid;
  askConfirm({
    message: t(how === "close" ? "card.closeConfirm" : "card.cancelConfirm"),
    extra: t(how === "close" ? "card.closeExtra" : "card.cancelExtra"),
    showNo: true,
    // The confirm says the action's verb, in red.
    yesLabel: t(how === "close" ? "card.close" : "card.cancel"),
    noLabel: t("confirm.keep"),
    danger: true,
    onYes: () =>
      void busy(async () => {
        progress.value = t(how === "close" ? "card.closing" : "card.cancelling");
        try {
          const r = await call(how === "close" ? reqApi.close : reqApi.cancel, { body: { oid } });
          maskCard();
          if (how === "close") walletFilter.value = "Closed";
          await applied(r.expenseRequest);
          await loadCard(oid, true);
          showNotice(t(how === "close" ? "card.closedNotice" : "card.cancelledNotice"));
        } catch (err) {
          pushBanner(messageOf(err));
        } finally {
          progress.value = null;
        }
      }),
  });
}

// ---- Generation (spec §2 request detail, §6: 3-D Secure first) ----

/** spec §2 'Generate card': opens the 3-D Secure setup first when it is not defined. */
export async function startGenerate(oid: string): Promise<void> {
  const e = detail.value?.entity;
  if (e && e.oid === oid && !e.is3DSecureDefined) {
    openSheet({ kind: "secure", generateFor: oid });
    return;
  }
  await generateCard(oid);
}

/**
 * Blocking, no optimistic success (engineering.md habit 7: money-moving actions): the progress
 * shows until the issuer answered; then the card opens, listed under Active.
 */
export async function generateCard(oid: string): Promise<void> {
  const card = await busy(async (): Promise<Card | null> => {
    progress.value = t("card.generating");
    let issued: Card | null = null;
    try {
      issued = (await call(api.newCard, { body: { oid } })).card;
      await writeCache("lists", cacheKey(oid), masked(issued));
      walletFilter.value = "Active";
      const { expenseRequest } = await call(reqApi.entity, { query: { record: oid } });
      await applied(expenseRequest);
    } catch (err) {
      if (err instanceof ApiError && err.code === "secure_required") {
        openSheet({ kind: "secure", generateFor: oid });
      } else if (!issued) pushBanner(messageOf(err));
    } finally {
      progress.value = null;
    }
    return issued;
  });
  if (card) {
    showNotice(t("card.generated"));
    await openCard(oid, card);
  }
}
