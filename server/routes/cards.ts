import { Hono } from "hono";
import { cards } from "../../client/shared/contract/cards.ts";
import type { AppEnv } from "../domain/env.ts";
import { cardView, generateCard, obfuscatedView, revealCard, setFrozen } from "../domain/cards.ts";
import {
  readSecure,
  revealSecurePassword,
  saveSecure,
  validateSecurePin,
} from "../domain/secure.ts";
import { route } from "./define.ts";

/**
 * spec §7 card and 3-D Secure calls (embedded backend). Every answer carries
 * Cache-Control: no-store (the /bonita middleware); only the two reveals carry secrets, and
 * those sealed for the device's one-time key.
 */
export function cardRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  route(app, cards.newCard, async ({ c, body, auth }) => ({
    card: await generateCard(c.var.deps, auth!.user, body.oid),
  }));
  route(app, cards.card, async ({ c, query, auth }) => ({
    card: await cardView(c.var.deps, auth!.user, query.oid),
  }));
  route(app, cards.obfuscated, async ({ c, query, auth }) => ({
    card: await obfuscatedView(c.var.deps, auth!.user, query.oid),
  }));
  route(app, cards.reveal, async ({ c, query, auth }) => ({
    encryptedresult: await revealCard(c.var.deps, auth!.user, query.oid, query.key),
  }));
  route(app, cards.freeze, async ({ c, body, auth }) => ({
    card: await setFrozen(c.var.deps, auth!.user, body.oid, true),
  }));
  route(app, cards.unfreeze, async ({ c, body, auth }) => ({
    card: await setFrozen(c.var.deps, auth!.user, body.oid, false),
  }));
  route(app, cards.secure, async ({ c, auth }) => ({
    secure: await readSecure(c.var.deps, auth!.user),
  }));
  route(
    app,
    cards.setSecure,
    async ({ c, body, auth }) => await saveSecure(c.var.deps, auth!.user, body.record),
  );
  route(
    app,
    cards.validateSecurePin,
    async ({ c, body, auth }) => await validateSecurePin(c.var.deps, auth!.user, body.pin),
  );
  route(app, cards.reveal3ds, async ({ c, query, auth }) => ({
    decryptpwd: await revealSecurePassword(c.var.deps, auth!.user, query.key),
  }));
  return app;
}
