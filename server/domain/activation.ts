import type { Deps } from "../env.ts";
import type { User } from "../store/users.ts";
import { newVerificationCode, sha256 } from "./secrets.ts";
import { translate } from "../i18n.ts";

/**
 * Issues a fresh single-use verification code for a user and emails it (spec §4, §5).
 * Codes are stored only as a hash; a collision with a live code draws again. The new
 * code revokes the user's previous one in the same atomic write, so a user never has
 * more than one live code for an attacker to aim at. `boundTo` (lost activation) binds
 * the code to the device that asked for it.
 */
export async function sendActivation(
  deps: Deps,
  user: User,
  opts: { boundTo?: string } = {},
): Promise<void> {
  const { store, config } = deps;
  const now = deps.now();
  const expiresAt = now + config.CODE_TTL_MINUTES * 60_000;
  let code = "";
  for (let i = 0; i < 20 && !code; i++) {
    const candidate = newVerificationCode();
    const codeHash = await sha256(candidate);
    const [cur, pointer] = [await store.codes.get(codeHash), await store.codes.ofUser(user.oid)];
    if (cur.value && cur.value.expiresAt > now) continue;
    const op = deps.store.kv.atomic().check(cur, pointer);
    if (pointer.value && pointer.value !== codeHash) {
      const old = (await store.codes.get(pointer.value)).value;
      store.codes.remove(op, { codeHash: pointer.value, boundTo: old?.boundTo });
    }
    store.codes.put(op, { codeHash, userOid: user.oid, expiresAt, boundTo: opts.boundTo }, now);
    if ((await op.commit()).ok) code = candidate;
  }
  if (!code) throw new Error("could not allocate a verification code");
  const t = await translate(user.locale);
  await deps.mail.send({
    to: user.email,
    subject: t("mail.activation.subject"),
    text: t("mail.activation.body", {
      fname: user.fname,
      code,
      url: config.PUBLIC_URL,
      expires: new Date(expiresAt).toISOString().replace("T", " ").slice(0, 16) + " UTC",
    }),
  });
  await deps.events.publish({ type: "activation.sent", userOid: user.oid, email: user.email });
}
