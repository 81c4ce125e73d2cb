import { Hono } from "hono";
import type { Context } from "hono";
import type * as z from "zod/mini";
import { session, Settings as SettingsSchema } from "../../client/api/contract/session.ts";
import { checkPin } from "../../client/lib/pin_rules.ts";
import { APP_VERSION } from "../config.ts";
import { badRequest, forbidden, HttpError, notFound, tooMany, unprocessable } from "../errors.ts";
import type { AppEnv, Deps } from "../env.ts";
import { sendActivation } from "../domain/activation.ts";
import { listRows } from "../domain/request_views.ts";
import { hashSecret, newToken, normaliseAnswer, sha256, verifySecret } from "../domain/secrets.ts";
import { dictionary, pickLocale, translate } from "../i18n.ts";
import type { Device } from "../store/devices.ts";
import { route } from "./define.ts";

type Settings = z.infer<typeof SettingsSchema>;

/** spec §9: five failed PIN attempts unregister the device. */
export const MAX_PIN_FAILURES = 5;
const HOUR = 3_600_000;
const QUARTER = 900_000;
/** Limits per window: activation emails and secret answers, per email and per device. */
export const LIMITS = {
  emailPerAddress: 5,
  emailPerDevice: 10,
  codeChecksPerDevice: 10,
  codeChecksPerAddress: 60,
};

/** The peer address Deno.serve hands to app.fetch (absent under app.request in tests). */
function clientAddress(c: Context<AppEnv>): string {
  const env = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return env?.remoteAddr?.hostname ?? "local";
}

async function limit(deps: Deps, kind: string, key: string, max: number, windowMs: number) {
  if (!(await deps.store.rateLimits.hit(kind, key, max, windowMs))) throw tooMany();
}

async function commitOr409(op: Deno.AtomicOperation): Promise<void> {
  if (!(await op.commit()).ok) {
    throw new HttpError(409, "conflict", "The record changed meanwhile, please retry");
  }
}

/** A device's token must match for unregister/check calls that carry one. */
async function tokenMatches(d: Device, token: string): Promise<boolean> {
  return token !== "" && (await sha256(token)) === d.tokenHash;
}

export function sessionRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  route(app, session.initialize, async ({ c }) => {
    const meta = await c.var.deps.store.org.meta();
    return {
      extensions: meta?.settings.acceptedExtensions ?? [],
      faqUrl: meta?.organisation.faqUrl ?? null,
      chatUrl: meta?.organisation.chatUrl ?? null,
      vapidPublicKey: null,
      version: APP_VERSION,
    };
  });

  // spec §9: dark slate in request mode, green in card mode.
  route(app, session.appcolor, () => ({ appcolor: "#2f3e4e", cardcolor: "#1f7a4d" }));

  route(app, session.translation, async ({ c, query, auth }) => {
    const locale = auth
      ? pickLocale(auth.user.locale)
      : pickLocale(query.locale, c.req.header("accept-language"));
    return { translation: await dictionary(locale), locale };
  });

  route(app, session.lists, async ({ c, auth }) => {
    const meta = await c.var.deps.store.org.meta();
    const u = auth!.user;
    return {
      ...settingsOf(meta?.settings),
      expenses: { expenseslist: await listRows(c.var.deps, u) },
      transactions: { receiptslist: [] },
      username: u.email,
      fname: u.fname,
      lname: u.lname,
      canRequest: u.canRequest,
    };
  });

  route(app, session.publicLists, async ({ c }) => ({
    ...settingsOf((await c.var.deps.store.org.meta())?.settings),
    expenses: { expenseslist: [] },
    transactions: { receiptslist: [] },
    canRequest: false as const,
  }));

  route(app, session.registerPushToken, async ({ c, body, auth }) => {
    const { device } = auth!;
    if (body.deviceId !== device.deviceId) {
      throw forbidden("device_mismatch", "deviceId does not belong to this token");
    }
    const { store } = c.var.deps;
    const cur = await store.devices.get(device.deviceId);
    if (!cur.value) throw notFound();
    const push = body.pushToken
      ? { token: body.pushToken, isIOS: body.isIOS, at: c.var.deps.now() }
      : undefined;
    await commitOr409(store.devices.put(store.kv.atomic().check(cur), { ...cur.value, push }));
    if (push) {
      await c.var.deps.events.publish({
        type: "push.registered",
        userOid: device.userOid,
        deviceId: device.deviceId,
      });
    }
    return { result: "OK" as const };
  });

  route(app, session.checkValidation, async ({ c, body, deviceId }) => {
    const deps = c.var.deps;
    const { store } = deps;
    const id = deviceId!;
    const addr = clientAddress(c);
    // Every check counts before it is evaluated, atomically, so parallel guesses cannot
    // slip past the limit (a code has only 10^5 values).
    await limit(deps, "codecheck-dev", id, LIMITS.codeChecksPerDevice, QUARTER);
    await limit(deps, "codecheck-ip", addr, LIMITS.codeChecksPerAddress, QUARTER);
    const codeHash = await sha256(body.verificationcode);
    const rec = await store.codes.get(codeHash);
    const now = deps.now();
    const v = rec.value;
    if (!v || v.expiresAt <= now || (v.claimedBy && v.claimedBy !== id)) {
      throw badRequest("invalid_code", "This activation code is not valid");
    }
    const user = await store.users.get(v.userOid);
    if (!user) throw badRequest("invalid_code", "This activation code is not valid");
    const existing = await store.devices.get(id);
    if (existing.value && existing.value.status === "active") {
      throw forbidden("already_active", "This device is already activated");
    }
    const token = newToken();
    const device: Device = {
      deviceId: id,
      userOid: user.oid,
      status: "pending",
      tokenHash: await sha256(token),
      codeHash,
      pinFailures: 0,
      createdAt: now,
      screen: screenOf(c),
    };
    const op = store.kv.atomic().check(rec).check(existing);
    if (existing.value) store.devices.remove(op, existing.value);
    store.codes.put(op, { ...v, claimedBy: id }, now);
    store.devices.put(op, device);
    await commitOr409(op);
    return { status: "OK" as const, token, fname: user.fname };
  });

  route(app, session.confirmPin, async ({ c, body, deviceId }) => {
    const deps = c.var.deps;
    const { store } = deps;
    const codeHash = await sha256(body.verificationcode);
    const [rec, dev] = [await store.codes.get(codeHash), await store.devices.get(deviceId!)];
    const now = deps.now();
    const d = dev.value;
    if (
      !rec.value || rec.value.expiresAt <= now || rec.value.claimedBy !== deviceId ||
      !d || d.status !== "pending" || d.codeHash !== codeHash
    ) {
      throw badRequest("invalid_code", "This activation code is not valid");
    }
    const problem = checkPin(body.pin);
    if (problem) {
      const t = await translate(pickLocale(c.req.header("accept-language")));
      throw unprocessable(
        `pin_${problem}`,
        t(problem === "sequence" ? "pin.sequence" : "pin.repetition"),
      );
    }
    const token = newToken();
    const active: Device = {
      ...d,
      status: "active",
      codeHash: undefined,
      tokenHash: await sha256(token),
      pin: await hashSecret(body.pin, deps.config.PIN_HASH_ITERATIONS),
      pinFailures: 0,
      activatedAt: now,
    };
    const op = store.kv.atomic().check(rec).check(dev);
    store.devices.remove(op, d);
    store.devices.put(op, active);
    store.codes.remove(op, rec.value); // single use
    await commitOr409(op);
    await deps.events.publish({
      type: "device.activated",
      userOid: d.userOid,
      deviceId: d.deviceId,
    });
    return { token, useEnc: true };
  });

  route(app, session.checkPinValid, async ({ c, body, deviceId }) => {
    const deps = c.var.deps;
    const { store } = deps;
    for (let attempt = 0; attempt < 5; attempt++) {
      const dev = await store.devices.get(deviceId!);
      const d = dev.value;
      if (!d || d.status !== "active" || !d.pin) {
        throw forbidden("unregistered", "This device is not registered");
      }
      const ok = (await verifySecret(body.pin, d.pin)) &&
        (body.token === "" || await tokenMatches(d, body.token));
      if (ok && body.token !== "") {
        if (d.pinFailures === 0) return { status: "OK" as const, useEnc: true };
        const r = await store.devices.put(store.kv.atomic().check(dev), { ...d, pinFailures: 0 })
          .commit();
        if (r.ok) return { status: "OK" as const, useEnc: true };
        continue;
      }
      // A right PIN without a token proves nothing to us: only a wrong one is counted.
      if (ok) throw badRequest("token_required", "The token is required");
      const failures = d.pinFailures + 1;
      if (failures >= MAX_PIN_FAILURES) {
        const r = await store.devices.remove(store.kv.atomic().check(dev), d).commit();
        if (!r.ok) continue;
        await deps.events.publish({
          type: "device.unregistered",
          userOid: d.userOid,
          deviceId: d.deviceId,
          reason: "pin_failures",
        });
        throw forbidden("unregistered", "Too many wrong PINs: the device was unregistered");
      }
      const r = await store.devices.put(store.kv.atomic().check(dev), {
        ...d,
        pinFailures: failures,
      })
        .commit();
      if (!r.ok) continue;
      throw forbidden("wrong_pin", "Wrong PIN", { attemptsLeft: MAX_PIN_FAILURES - failures });
    }
    throw new HttpError(409, "conflict", "Please retry");
  });

  route(app, session.checkRegistered, async ({ c, body, deviceId }) => {
    const d = (await c.var.deps.store.devices.get(deviceId!)).value;
    const ok = d && d.status === "active" && (await tokenMatches(d, body.token));
    return { status: ok ? "OK" as const : "NOT_REGISTERED" as const };
  });

  route(app, session.unregister, async ({ c, body, deviceId }) => {
    const deps = c.var.deps;
    const dev = await deps.store.devices.get(deviceId!);
    const d = dev.value;
    if (!d || !(await tokenMatches(d, body.token))) {
      throw forbidden("not_registered", "This device is not registered with this token");
    }
    await commitOr409(deps.store.devices.remove(deps.store.kv.atomic().check(dev), d));
    await deps.events.publish({
      type: "device.unregistered",
      userOid: d.userOid,
      deviceId: d.deviceId,
      reason: "user",
    });
    return { status: "OK" };
  });

  route(app, session.activationEmail, async ({ c, body, deviceId }) => {
    const deps = c.var.deps;
    const email = body.email.toLowerCase();
    await limit(deps, "actmail-dev", deviceId!, LIMITS.emailPerDevice, HOUR);
    await limit(deps, "actmail-email", email, LIMITS.emailPerAddress, HOUR);
    const user = await deps.store.users.byEmail(email);
    const t = await translate(pickLocale(c.req.header("accept-language")));
    // spec §8: lost activation with no previous activation.
    if (!user) throw notFoundWith("no_previous_activation", t("lost.noPrevious"));
    const q = await deps.store.org.secretQuestion(user.secret.questionOid);
    if (!q) throw notFoundWith("no_previous_activation", t("lost.noPrevious"));
    const locale = pickLocale(c.req.header("accept-language"), user.locale);
    return {
      question: { id: q.oid, key: q.key, text: q.text[locale as "en" | "fr"] ?? q.text.en },
    };
  });

  route(app, session.secretAnswer, async ({ c, body, deviceId }) => {
    const deps = c.var.deps;
    const email = body.email.toLowerCase();
    await limit(deps, "answer-dev", deviceId!, LIMITS.emailPerDevice, HOUR);
    await limit(deps, "answer-email", email, LIMITS.emailPerAddress, HOUR);
    const user = await deps.store.users.byEmail(email);
    const t = await translate(pickLocale(c.req.header("accept-language"), user?.locale));
    const right = user && user.secret.questionOid === body.questOid &&
      (await verifySecret(normaliseAnswer(body.answer), user.secret.answer));
    // spec §8: one message for every failure, so answers cannot be probed apart from emails.
    if (!right) throw badRequest("wrong_answer", t("common.somethingWrong"));
    await sendActivation(deps, user);
    return { message: t("lost.sent") };
  });

  route(app, session.supportUrl, async ({ c }) => ({
    supporturl: (await c.var.deps.store.org.meta())?.organisation.supportUrl ?? null,
  }));

  route(app, session.secretQuestions, async ({ c, auth }) => {
    const locale = pickLocale(auth!.user.locale) as "en" | "fr";
    const qs = await c.var.deps.store.org.secretQuestions();
    return {
      questions: qs.map((q) => ({ id: q.oid, key: q.key, text: q.text[locale] ?? q.text.en })),
    };
  });

  return app;
}

function notFoundWith(code: string, message: string): HttpError {
  return new HttpError(404, code, message);
}

function screenOf(c: Context<AppEnv>): Device["screen"] {
  const w = Number(c.req.header("screenW")), h = Number(c.req.header("screenH"));
  return Number.isFinite(w) && Number.isFinite(h) && w > 0 && h > 0 && w < 1e5 && h < 1e5
    ? { w, h }
    : undefined;
}

/** The settings part of the pwalists answer, with defaults for an organisation not yet loaded. */
function settingsOf(s: Settings | undefined): Settings {
  return {
    vatMode: s?.vatMode ?? "simple",
    accountingCodeEnabled: s?.accountingCodeEnabled ?? "false",
    typeEnabled: s?.typeEnabled ?? "true",
    limitReceiptAttachementFormat: s?.limitReceiptAttachementFormat ?? false,
  };
}
