import { Hono } from "hono";
import type { Context } from "hono";
import { session } from "../../client/shared/contract/session.ts";
import { checkPin } from "../../client/shared/pin_rules.ts";
import { badRequest, forbidden, HttpError, notFound, unprocessable } from "../errors.ts";
import type { AppEnv } from "../domain/env.ts";
import { checkActivationCode } from "../domain/code_check.ts";
import { checkAnswer, NoQuestions, questionFor } from "../domain/lost_activation.ts";
import { checkPinAttempt, tokenOf } from "../domain/pin_check.ts";
import { servedRelease } from "../release.ts";
import { hashSecret, newToken, sha256 } from "../secrets.ts";
import { addressKey } from "../middleware/peer.ts";
import { dictionary, LOCALES, pickLocale, translate } from "../i18n.ts";
import { supportPath } from "../support/pages.ts";
import { vapidKeys } from "../push/keys.ts";
import { parsePushSubscription } from "../push_subscription.ts";
import type { Device } from "../store/devices.ts";
import type { User } from "../store/users.ts";
import { route } from "./define.ts";
import { DEFAULT_APP_COLOR, DEFAULT_CARD_COLOR } from "../org/schema.ts";
import { labelIn } from "../org/labels.ts";

async function commitOr409(op: Deno.AtomicOperation): Promise<void> {
  if (!(await op.commit()).ok) {
    throw new HttpError(409, "conflict", "The record changed meanwhile, please retry");
  }
}

export function sessionRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  route(app, session.initialize, async ({ c }) => {
    const meta = await c.var.deps.store.org.meta();
    return {
      extensions: meta?.settings.acceptedExtensions ?? [],
      // spec §7 pwasupporturl: without an external FAQ, our own support page in the device's
      // language.
      faqUrl: meta?.organisation.faqUrl ?? supportPath(pickLocale(c.req.header("accept-language"))),
      chatUrl: meta?.organisation.chatUrl ?? null,
      // spec §1 push notifications: null when push is off (production without VAPID keys).
      vapidPublicKey: (await vapidKeys(c.var.deps.config, c.var.deps.store.kv))?.publicKey ?? null,
      // spec §1: the served build's own version, the one its label shows (server/release.ts).
      version: (await servedRelease(c.var.deps.config.STATIC_DIR)).version,
    };
  });

  // spec §9: dark slate in request mode, green in card mode, unless the organisation says.
  route(app, session.appcolor, async ({ c }) => {
    const s = (await c.var.deps.store.org.meta())?.settings;
    return {
      appcolor: s?.appColor ?? DEFAULT_APP_COLOR,
      cardcolor: s?.cardColor ?? DEFAULT_CARD_COLOR,
    };
  });

  route(app, session.translation, async ({ c, query, auth }) => {
    if (!auth) {
      const locale = pickLocale(query.locale, c.req.header("accept-language"));
      return { translation: await dictionary(locale), locale };
    }
    // spec §7 pwatranslation: a language asked for by the person's device (chosen in Options, or
    // the browser's) becomes theirs: mails, push texts and error messages follow it.
    const asked = query.locale?.slice(0, 2);
    const locale = asked && LOCALES.includes(asked) ? asked : pickLocale(auth.user.locale);
    if (locale !== auth.user.locale) await rememberLocale(c.var.deps.store, auth.user.oid, locale);
    return { translation: await dictionary(locale), locale };
  });

  route(app, session.registerPushToken, async ({ c, body, auth }) => {
    const { device } = auth!;
    if (body.deviceId !== device.deviceId) {
      throw forbidden("device_mismatch", "deviceId does not belong to this token");
    }
    const { store } = c.var.deps;
    const cur = await store.devices.get(device.deviceId);
    if (!cur.value) throw notFound();
    // spec §7 pwaregisterpushtoken: the token is the PushSubscription's JSON; an empty one
    // deregisters.
    const sub = body.pushToken
      ? parsePushSubscription(body.pushToken, { hosts: c.var.deps.config.PUSH_HOSTS })
      : null;
    if (typeof sub === "string") throw badRequest("invalid_push_token", sub);
    const at = c.var.deps.now();
    const push = sub ? { token: JSON.stringify(sub), isIOS: body.isIOS, at } : undefined;
    const op = store.devices.put(store.kv.atomic().check(cur), { ...cur.value, push });
    if (sub) {
      const { userOid, deviceId } = device;
      store.pushSubs.put(op, { userOid, deviceId, subscription: sub, isIOS: body.isIOS, at });
    } else store.pushSubs.remove(op, device.userOid, device.deviceId);
    await commitOr409(op);
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
    const existing = await store.devices.get(id);
    if (existing.value && existing.value.status === "active") {
      throw forbidden("already_active", "This device is already activated");
    }
    const check = await checkActivationCode(deps, id, addressKey(c), body.verificationcode);
    const t = await translate(pickLocale(c.req.header("accept-language")));
    if (check.kind === "resent") throw forbidden("code_resent", t("activation.codeResent"));
    if (check.kind === "mailedIfRight") {
      throw forbidden("code_sent_if_right", t("activation.codeSentIfRight"));
    }
    if (check.kind === "invalid") throw badRequest("invalid_code", t("activation.invalidCode"));
    const { entry, user } = check;
    const now = deps.now();
    const token = newToken();
    const device: Device = {
      deviceId: id,
      userOid: user.oid,
      status: "pending",
      tokenHash: await sha256(token),
      codeHash: entry.value.codeHash,
      pinFailures: 0,
      createdAt: now,
      screen: screenOf(c),
    };
    const op = store.kv.atomic().check(entry).check(existing);
    if (existing.value) store.devices.remove(op, existing.value);
    store.codes.put(op, { ...entry.value, claimedBy: id }, now, { pointer: !entry.value.beside });
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
      lastSeenAt: now,
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
    const { token } = await checkPinAttempt(c.var.deps, deviceId!, body.token, body.pin);
    return { status: "OK" as const, useEnc: true, token };
  });

  route(app, session.checkRegistered, async ({ c, body, deviceId }) => {
    const d = (await c.var.deps.store.devices.get(deviceId!)).value;
    const ok = d && d.status === "active" && !!(await tokenOf(d, body.token));
    return { status: ok ? "OK" as const : "NOT_REGISTERED" as const };
  });

  route(app, session.unregister, async ({ c, body, deviceId }) => {
    const deps = c.var.deps;
    const dev = await deps.store.devices.get(deviceId!);
    const d = dev.value;
    if (!d || !(await tokenOf(d, body.token))) {
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
    const email = body.email.trim().toLowerCase();
    let q;
    try {
      q = await questionFor(deps, email, deviceId!, addressKey(c));
    } catch (err) {
      if (!(err instanceof NoQuestions)) throw err;
      // spec §8: said the same way for every address, so it reveals none.
      const t = await translate(pickLocale(c.req.header("accept-language")));
      throw new HttpError(404, "no_previous_activation", t("lost.noPrevious"));
    }
    const locale = pickLocale(c.req.header("accept-language"));
    return { question: { id: q.oid, key: q.key, text: labelIn(q.text, locale) } };
  });

  route(app, session.secretAnswer, async ({ c, body, deviceId }) => {
    const deps = c.var.deps;
    const email = body.email.trim().toLowerCase();
    const t = await translate(pickLocale(c.req.header("accept-language")));
    let outcome;
    try {
      outcome = await checkAnswer(deps, email, body.questOid, body.answer, deviceId!);
    } catch (err) {
      if (err instanceof HttpError && err.code === "too_many_codes") {
        throw new HttpError(429, "too_many_codes", t("lost.tooManyCodes"));
      }
      throw err;
    }
    // spec §8: one message for every failure, so answers cannot be probed apart from emails.
    if (outcome === "wrong") throw badRequest("wrong_answer", t("common.somethingWrong"));
    return { message: t(outcome === "sent" ? "lost.sent" : "lost.sentIfRight") };
  });

  // spec §7: the external support address, else our own page in the user's language.
  route(app, session.supportUrl, async ({ c, auth }) => ({
    supporturl: (await c.var.deps.store.org.meta())?.organisation.supportUrl ??
      supportPath(pickLocale(auth!.user.locale)),
  }));

  route(app, session.secretQuestions, async ({ c, auth }) => {
    // The organisation's words in the language the app shows, else the user's (spec §3).
    const locale = pickLocale(c.req.header("accept-language"), auth!.user.locale);
    const qs = await c.var.deps.store.org.secretQuestions();
    return {
      questions: qs.map((q) => ({ id: q.oid, key: q.key, text: labelIn(q.text, locale) })),
    };
  });

  return app;
}

/** Stores the user's language (spec §7 pwatranslation), re-reading the user on a conflict. */
async function rememberLocale(
  store: AppEnv["Variables"]["deps"]["store"],
  oid: string,
  locale: string,
) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const entry = await store.kv.get<User>(["user", oid]);
    if (!entry.value || entry.value.locale === locale) return;
    const op = store.users.put(store.kv.atomic().check(entry), { ...entry.value, locale });
    if ((await op.commit()).ok) return;
  }
}

function screenOf(c: Context<AppEnv>): Device["screen"] {
  const w = Number(c.req.header("screenW")), h = Number(c.req.header("screenH"));
  return Number.isFinite(w) && Number.isFinite(h) && w > 0 && h > 0 && w < 1e5 && h < 1e5
    ? { w, h }
    : undefined;
}
