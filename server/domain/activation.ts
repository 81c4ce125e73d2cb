import type { Deps } from "./env.ts";
import type { User } from "../store/users.ts";
import { newVerificationCode, sha256 } from "../secrets.ts";
import { translate } from "../i18n.ts";

/** A user who may still come in: null for none and for one who left (leavers.ts). */
export function present(u: User | null): User | null {
  return u && !u.leftAt ? u : null;
}

/**
 * Issues a fresh single-use verification code for a user and queues its email (spec §4, §5).
 * Codes are stored only as a hash; a collision with a live code draws again. The new
 * code revokes the user's previous one in the same atomic write, so a user never has
 * more than one live code for an attacker to aim at. `boundTo` (lost activation) binds
 * the code to the device that asked for it. The mail is part of that same write (the durable
 * outbox): the code and its mail exist together or not at all, and no mail server is waited for.
 */
export async function sendActivation(
  deps: Deps,
  user: User,
  opts: {
    boundTo?: string;
    /**
     * The throttled check's step (code_check.ts): the bound code lives beside the user's
     * code instead of replacing it, so a stranger's right guess cannot revoke the owner's.
     */
    beside?: boolean;
  } = {},
): Promise<void> {
  if (user.leftAt) return; // a leaver gets no way in (leavers.ts)
  const { store, config } = deps;
  const now = deps.now();
  // A lost-activation code is used at once, on the device that asked: a short life.
  const ttl = opts.boundTo ? config.BOUND_CODE_TTL_MINUTES : config.CODE_TTL_MINUTES;
  const expiresAt = now + ttl * 60_000;
  const t = await translate(user.locale);
  const mail = (code: string) => ({
    channel: "email" as const,
    purpose: "activation",
    to: user.email,
    subject: t("mail.activation.subject"),
    text: t("mail.activation.body", {
      fname: user.fname,
      code,
      url: config.PUBLIC_URL,
      expires: new Date(expiresAt).toISOString().replace("T", " ").slice(0, 16) + " UTC",
    }),
    // A code past its lifetime is not mailed late: the message is marked expired instead;
    // nor is one revoked by a newer code, still unsent (a mail server away meanwhile).
    expiresAt,
    replaceKey: opts.beside ? `activation:${user.oid}:${opts.boundTo}` : `activation:${user.oid}`,
  });
  let sent = false;
  for (let i = 0; i < 20 && !sent; i++) {
    const candidate = newVerificationCode();
    const codeHash = await sha256(candidate);
    const [cur, pointer] = [await store.codes.get(codeHash), await store.codes.ofUser(user.oid)];
    if (cur.value && cur.value.expiresAt > now) continue;
    const op = deps.store.kv.atomic().check(cur, pointer);
    if (!opts.beside && pointer.value && pointer.value !== codeHash) {
      const old = (await store.codes.get(pointer.value)).value;
      store.codes.remove(op, { codeHash: pointer.value, boundTo: old?.boundTo });
    }
    const record = {
      codeHash,
      userOid: user.oid,
      expiresAt,
      boundTo: opts.boundTo,
      ...(opts.beside ? { beside: true } : {}),
    };
    store.codes.put(op, record, now, { pointer: !opts.beside });
    deps.messages.add(op, mail(candidate));
    await deps.faults?.beforeCommit?.("activation");
    sent = (await op.commit()).ok;
  }
  if (!sent) throw new Error("could not allocate a verification code");
  await deps.events.publish({ type: "activation.sent", userOid: user.oid, email: user.email });
}
