/**
 * The browser half of the card-data scan (docs/security.md): what the card face shows, and every
 * place a page keeps data (DOM, QCDB, Cache Storage, cookies, local and session storage) searched
 * for a card number or a CVC.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { luhnValid } from "../../server/issuer/pan.ts";

/** The card face as shown: number, CVC, valid thru, holder, brand. */
export const face = (p: Page) =>
  p.evaluate(() => {
    const f = document.querySelector(".side-panel.open .card-face");
    const text = (sel: string) =>
      (f?.querySelector(sel) as HTMLElement | null)?.innerText.trim() ?? null;
    return {
      number: (f?.querySelector(".card-number span:last-child") as HTMLElement | null)
        ?.innerText.trim() ?? null,
      cvc: text(".card-cvc"),
      expiry: text(".card-expiry span"),
      holder: text(".card-holder span"),
      brand: f?.querySelector("svg[role=img]")?.getAttribute("aria-label") ?? null,
    };
  });

export const badge = (p: Page) =>
  p.evaluate(() => {
    const l = document.querySelectorAll(".side-panel.open");
    return (l[l.length - 1]?.querySelector(".detail-head .status") as HTMLElement | null)
      ?.innerText;
  });

/** Sixteen digits (optionally in groups) that pass Luhn: what a card number looks like. */
export function luhnNumbers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\d])(?:\d[ -]?){15}\d(?![\d])/g)) {
    const digits = m[0].replace(/\D/g, "");
    if (luhnValid(digits)) out.push(digits);
  }
  return out;
}

/** A CVC next to its label or field name ('CVC 123', '"cvc":"123"', 'cvv=123'). */
export function cvcMentions(text: string, cvc: string): string[] {
  const near = /(?:cvc|cvv2?|cvn|csc|cryptogram(?:me)?)["'\s:=]{0,12}(\d{3,4})(?!\d)/gi;
  return [...text.matchAll(near)].map((m) => m[0]).filter((m) => m.endsWith(cvc));
}

/**
 * Everything the page keeps where it could be read later: the DOM (text, attributes, input
 * values), every QCDB store, every Cache Storage response, cookies, local and session storage.
 */
export async function pageData(p: Page) {
  const inPage = await p.evaluate(async () => {
    const dom = document.body.innerText + "\n" + document.documentElement.outerHTML + "\n" +
      [...document.querySelectorAll("input, textarea")].map((e) => (e as HTMLInputElement).value)
        .join("\n");
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open("QCDB");
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const stores: Record<string, unknown[]> = {};
    for (const name of [...db.objectStoreNames]) {
      stores[name] = await new Promise<unknown[]>((res, rej) => {
        const r = db.transaction(name).objectStore(name).getAll();
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
    }
    db.close();
    const cached: string[] = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const req of await cache.keys()) {
        const res = await cache.match(req);
        cached.push(`${req.url}\n${await res!.text()}`);
      }
    }
    const storage = (s: Storage) =>
      Array.from({ length: s.length }, (_, i) => `${s.key(i)}=${s.getItem(s.key(i)!)}`);
    return {
      dom,
      stores,
      cached,
      local: storage(localStorage),
      session: storage(sessionStorage),
      docCookies: document.cookie,
    };
  });
  const cookies = (await p.browserContext().cookies()).map((c) => `${c.name}=${c.value}`);
  return { ...inPage, cookies };
}

/** The card-data scan: after the mask, no number and no CVC anywhere it could stay. */
export async function assertNoCardData(p: Page, pan: string, cvc: string): Promise<void> {
  const d = await pageData(p);
  const places: [string, string][] = [
    ["DOM", d.dom],
    ["QCDB", JSON.stringify(d.stores)],
    ["Cache Storage", d.cached.join("\n")],
    ["cookies", [...d.cookies, d.docCookies].join("\n")],
    ["localStorage", d.local.join("\n")],
    ["sessionStorage", d.session.join("\n")],
  ];
  for (const [where, text] of places) {
    assert.ok(!text.includes(pan), `the card number is in ${where}`);
    assert.ok(!text.includes(pan.replace(/(\d{4})(?=\d)/g, "$1 ")), `grouped number in ${where}`);
    assert.deepEqual(luhnNumbers(text), [], `a Luhn-valid 16-digit number in ${where}`);
    assert.deepEqual(cvcMentions(text, cvc), [], `the CVC in ${where}`);
  }
  // A card face still on screen has its CVC slot masked again.
  assert.ok([null, "•••"].includes((await face(p)).cvc));
  // QCDB holds encrypted blobs only, the card among them (cached masked, spec §8).
  const lists = d.stores.lists as { key: string; iv: string; ct: string }[];
  assert.ok(lists.some((e) => e.key.startsWith("card:")), "the card is cached");
  for (const store of ["lists", "approvals", "types", "costcenters", "currencylist"]) {
    for (const e of (d.stores[store] ?? []) as Record<string, unknown>[]) {
      assert.deepEqual(Object.keys(e).sort(), ["ct", "id", "iv", "key", "savedAt"], store);
    }
  }
  assert.ok(d.cached.length > 0, "the service worker's precache was read");
}
