import assert from "node:assert/strict";
import {
  clearAllQcCookies,
  COOKIE_MAX_AGE_SECONDS,
  COOKIE_NAMES,
  type CookieJar,
  deleteCookie,
  getCookie,
  newDeviceId,
  refreshQcCookies,
  setCookie,
} from "../../client/lib/cookies.ts";

/**
 * A stand-in for `document.cookie`: records every written string and, like a
 * browser, keeps name=value pairs, dropping a cookie on Max-Age=0.
 */
class FakeJar implements CookieJar {
  writes: string[] = [];
  store = new Map<string, string>();
  constructor(public protocol = "https:") {}
  get cookie(): string {
    return [...this.store].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  set cookie(line: string) {
    this.writes.push(line);
    const [pair, ...attrs] = line.split(";").map((s) => s.trim());
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    if (attrs.some((a) => /^max-age=0$/i.test(a))) this.store.delete(name);
    else this.store.set(name, pair.slice(eq + 1));
  }
}

Deno.test("[cookies] names are the qc_ set of spec §3, without a clear token", () => {
  assert.deepEqual(COOKIE_NAMES, {
    encToken: "qc_enctoken",
    pinLength: "qc_pinlength",
    deviceId: "qc_deviceid",
    iv: "qc_iv",
    push: "qc_push",
  });
  assert.ok(Object.isFrozen(COOKIE_NAMES));
  assert.ok(
    !Object.values(COOKIE_NAMES).some((n) => /^qc_(access)?token$/.test(n)),
  );
});

Deno.test("[cookies] setCookie writes ~12 years, Path=/, SameSite=Strict, Secure on https", () => {
  const jar = new FakeJar("https:");
  setCookie(COOKIE_NAMES.pinLength, "6", jar);
  assert.equal(COOKIE_MAX_AGE_SECONDS, 378_691_200);
  assert.deepEqual(jar.writes, [
    "qc_pinlength=6; Max-Age=378691200; Path=/; SameSite=Strict; Secure",
  ]);
  assert.equal(getCookie(COOKIE_NAMES.pinLength, jar), "6");
});

Deno.test("[cookies] no Secure attribute over http (localhost development)", () => {
  const jar = new FakeJar("http:");
  setCookie(COOKIE_NAMES.push, "1", jar);
  assert.deepEqual(jar.writes, [
    "qc_push=1; Max-Age=378691200; Path=/; SameSite=Strict",
  ]);
});

Deno.test("[cookies] values are encoded so separators cannot inject attributes", () => {
  const jar = new FakeJar();
  const nasty = "a; Domain=evil.example, b=c d%";
  setCookie(COOKIE_NAMES.deviceId, nasty, jar);
  const [first] = jar.writes[0].split(";");
  assert.equal(first, `qc_deviceid=${encodeURIComponent(nasty)}`);
  assert.doesNotMatch(first.slice("qc_deviceid=".length), /[;, ]/);
  assert.equal(getCookie(COOKIE_NAMES.deviceId, jar), nasty);
});

Deno.test("[cookies] sealed tokens are stored verbatim", () => {
  const jar = new FakeJar();
  const sealed = "v1.600000.AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBB.Cc-_Dd";
  setCookie(COOKIE_NAMES.encToken, sealed, jar);
  assert.ok(jar.writes[0].startsWith(`qc_enctoken=${sealed};`));
  assert.equal(getCookie(COOKIE_NAMES.encToken, jar), sealed);
});

Deno.test("[cookies] getCookie matches whole names only and tolerates foreign cookies", () => {
  const jar: CookieJar = {
    protocol: "https:",
    cookie: "xqc_push=9; qc_push_old=8;qc_push=1; other=%E0%A4%A; qc_iv=%E0%A4%A",
  };
  assert.equal(getCookie(COOKIE_NAMES.push, jar), "1");
  assert.equal(getCookie(COOKIE_NAMES.pinLength, jar), null);
  // Malformed percent-encoding (not written by us) comes back raw.
  assert.equal(getCookie(COOKIE_NAMES.iv, jar), "%E0%A4%A");
  assert.equal(
    getCookie(COOKIE_NAMES.push, { protocol: "http:", cookie: "" }),
    null,
  );
});

Deno.test("[cookies] empty value is kept distinct from absent", () => {
  const jar = new FakeJar();
  setCookie(COOKIE_NAMES.push, "", jar);
  assert.equal(getCookie(COOKIE_NAMES.push, jar), "");
});

Deno.test("[cookies] deleteCookie expires with the same Path/SameSite/Secure", () => {
  const jar = new FakeJar("https:");
  setCookie(COOKIE_NAMES.deviceId, "abc", jar);
  deleteCookie(COOKIE_NAMES.deviceId, jar);
  assert.equal(
    jar.writes[1],
    "qc_deviceid=; Max-Age=0; Path=/; SameSite=Strict; Secure",
  );
  assert.equal(getCookie(COOKIE_NAMES.deviceId, jar), null);
});

Deno.test("[cookies] clearAllQcCookies removes every app cookie and nothing else", () => {
  const jar = new FakeJar();
  for (const name of Object.values(COOKIE_NAMES)) setCookie(name, "x", jar);
  jar.store.set("theirs", "keep");
  clearAllQcCookies(jar);
  assert.equal(jar.cookie, "theirs=keep");
  const deletes = jar.writes.filter((w) => w.includes("Max-Age=0"));
  assert.equal(deletes.length, Object.values(COOKIE_NAMES).length);
});

Deno.test("[cookies] refreshQcCookies rewrites only the cookies that exist", () => {
  const jar = new FakeJar();
  setCookie(COOKIE_NAMES.pinLength, "6", jar);
  setCookie(COOKIE_NAMES.deviceId, "d 1", jar);
  jar.writes = [];
  refreshQcCookies(jar);
  assert.deepEqual(jar.writes.map((w) => w.split(";")[0]).sort(), [
    "qc_deviceid=d%201",
    "qc_pinlength=6",
  ]);
  assert.equal(getCookie(COOKIE_NAMES.deviceId, jar), "d 1");
});

Deno.test("[cookies] newDeviceId is a fresh v4 UUID", () => {
  const a = newDeviceId();
  assert.match(
    a,
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  );
  assert.notEqual(a, newDeviceId());
});

Deno.test("[cookies] the default jar is not touched at import time", async () => {
  // Importing in Deno (no `document`) must not throw; only a call would.
  const mod = await import("../../client/lib/cookies.ts");
  assert.equal(typeof mod.browserJar, "function");
  assert.throws(() => mod.getCookie(COOKIE_NAMES.push), ReferenceError);
});
