import type { Deps } from "./env.ts";
import { HttpError, tooMany } from "../errors.ts";
import type { SecretQuestion } from "../store/org.ts";
import type { User } from "../store/users.ts";
import { present, sendActivation } from "./activation.ts";
import { hashSecret, normaliseAnswer, type SaltedHash, sha256, verifySecret } from "../secrets.ts";

/**
 * Lost activation (spec §2, §7 pwaactivationemail and pwasecretanswer), answering known and
 * unknown addresses alike: the same status, the same shape and the same work (one user
 * lookup, one question read, one PBKDF2 run), so an address cannot be told to exist.
 */
export const LOST_LIMITS = {
  /** Question lookups per device id and per client address (they reveal nothing). */
  questionsPerDevice: 10,
  questionsPerAddress: 120,
  /** Answers one device may try for one address per hour: only that device is slowed. */
  answersPerDeviceAndEmail: 5,
  /** Answers for one address per day from all devices; past it answers are blind. */
  answersPerEmail: 20,
  /** Codes mailed to one user per day through lost activation. */
  codesPerUser: 5,
};
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** 'No previous activation found': only when the organisation has no secret questions. */
export class NoQuestions extends Error {}

/**
 * The question of an address. For an unknown address the answer is a decoy: one of the
 * organisation's questions chosen by a keyed hash of the address, so repeated asks for it
 * give the same question, as they would for a real account.
 */
export async function questionFor(
  deps: Deps,
  email: string,
  deviceId: string,
  address: string,
): Promise<SecretQuestion> {
  const { rateLimits, users, org } = deps.store;
  if (
    !(await rateLimits.hit("lostq-dev", deviceId, LOST_LIMITS.questionsPerDevice, HOUR)) ||
    !(await rateLimits.hit("lostq-addr", address, LOST_LIMITS.questionsPerAddress, HOUR))
  ) throw tooMany();
  // The same work for every address (spec §8: nothing told apart, in time either): the decoy
  // hash is computed and two records are read whether the address is known or not.
  const decoy = parseInt((await keyedHash(deps, email)).slice(0, 8), 16);
  const user = present(await users.byEmail(email));
  if (!user) await users.get(`decoy-${decoy}`);
  const questions = await org.secretQuestions();
  if (!questions.length) throw new NoQuestions();
  const oid = user?.secret.questionOid ?? questions[decoy % questions.length].oid;
  return questions.find((q) => q.oid === oid) ?? questions[0];
}

export type AnswerOutcome =
  /** Right answer: a code bound to the asking device is on its way. */
  | "sent"
  /** Past the address's daily budget: right or wrong, the same answer ('if it was right'). */
  | "blind"
  | "wrong";

/**
 * Checks a secret answer, counted before it is evaluated. The asking device gets a few
 * tries per hour at an address; the address gets a daily budget across devices, past which
 * answers are still evaluated but answered blind: a right answer mails the code as usual,
 * a wrong one looks the same. Strangers can therefore spend the budget but not lock the
 * owner out, and they learn nothing from the tries that follow.
 */
export async function checkAnswer(
  deps: Deps,
  email: string,
  questOid: string,
  answer: string,
  deviceId: string,
): Promise<AnswerOutcome> {
  const { rateLimits, users } = deps.store;
  const perDevice = await rateLimits.hit(
    "answer-dev",
    `${deviceId}|${email}`,
    LOST_LIMITS.answersPerDeviceAndEmail,
    HOUR,
  );
  if (!perDevice) throw tooMany();
  const open = await rateLimits.hit("answer-email", email, LOST_LIMITS.answersPerEmail, DAY);
  const user = present(await users.byEmail(email));
  const stored = user?.secret.answer ?? await decoyHash(deps);
  const matches = await verifySecret(normaliseAnswer(answer), stored);
  const right = !!user && matches && user.secret.questionOid === questOid;
  if (right) {
    await mailBoundCode(deps, user, deviceId);
    return open ? "sent" : "blind";
  }
  return open ? "wrong" : "blind";
}

/** A code bound to `deviceId`, within the user's daily allowance of lost-activation codes. */
export async function mailBoundCode(deps: Deps, user: User, deviceId: string): Promise<void> {
  const ok = await deps.store.rateLimits.hit("lost-codes", user.oid, LOST_LIMITS.codesPerUser, DAY);
  if (!ok) throw new HttpError(429, "too_many_codes", "too many codes");
  await sendActivation(deps, user, { boundTo: deviceId });
}

/** A per-store random key, created once, for the decoy question choice. */
async function keyedHash(deps: Deps, email: string): Promise<string> {
  return await sha256(`${await serverKey(deps)}|${email.trim().toLowerCase()}`);
}

const keys = new WeakMap<Deno.Kv, Promise<string>>();
function serverKey(deps: Deps): Promise<string> {
  const kv = deps.store.kv;
  let k = keys.get(kv);
  if (!k) {
    k = (async () => {
      const key = ["server", "decoy-key"];
      const fresh = crypto.randomUUID() + crypto.randomUUID();
      await kv.atomic().check({ key, versionstamp: null }).set(key, fresh).commit();
      return (await kv.get<string>(key)).value ?? fresh;
    })();
    keys.set(kv, k);
  }
  return k;
}

/** A hash no answer matches, at the organisation's cost, so unknown addresses cost the same. */
const decoys = new WeakMap<Deno.Kv, Promise<SaltedHash>>();
function decoyHash(deps: Deps): Promise<SaltedHash> {
  const kv = deps.store.kv;
  let h = decoys.get(kv);
  if (!h) {
    h = hashSecret(crypto.randomUUID(), deps.config.PIN_HASH_ITERATIONS);
    decoys.set(kv, h);
  }
  return h;
}
