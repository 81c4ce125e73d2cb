/**
 * spec §1 support and §7 pwasupporturl on the server: our own support page when no external address
 * is configured (pwasupporturl, initialize's faqUrl, the pages' framing headers), the user's
 * language taken from the device (pwatranslation), and secret questions in German and Spanish.
 */
import assert from "node:assert/strict";
import { createApp } from "../../server/app/app.ts";
import { de } from "../../client/shared/i18n/locales/de.ts";
import { es } from "../../client/shared/i18n/locales/es.ts";
import { supportPath, writeSupportPages } from "../../server/support/pages.ts";
import { DEMO, testApp, withApp } from "../helpers.ts";

const E = "/scmapi/expense";
const bearer = (token: string, more: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  ...more,
});

/** The parts of the organisation file these tests change. */
interface OrgJson {
  organisation: Record<string, string>;
  secretQuestions: { oid: string; text: Record<string, string> }[];
}

/** The demo organisation with changes, in a temporary ORG_FILE. */
async function orgFile(change: (org: OrgJson) => void): Promise<string> {
  const url = new URL("../../server/org/demo_org.json", import.meta.url);
  const org = JSON.parse(await Deno.readTextFile(url));
  change(org);
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, JSON.stringify(org));
  return file;
}

Deno.test(
  "[support] without an external address, pwasupporturl and the FAQ link name our own page in the user's language",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee);
    const s = await api.call("GET", `${E}/pwasupporturl`, { headers: bearer(token) });
    assert.equal(s.status, 200, s.text);
    assert.deepEqual(s.json, { supporturl: "/support/en.html" });
    const init = await api.call("GET", "/qtservlet/initialize", {
      headers: { "accept-language": "es-ES,es;q=0.9" },
    });
    assert.equal(init.json.faqUrl, "/support/es.html");
    assert.equal(init.json.chatUrl, "https://chat.demo.example/");
    const plain = await api.call("GET", "/qtservlet/initialize");
    assert.equal(plain.json.faqUrl, "/support/en.html");
  }),
);

Deno.test(
  "[support] the language a device asks pwatranslation for becomes the user's: support page, errors follow",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.approver);
    const h = bearer(token);
    const first = await api.call("GET", `${E}/pwacheckcancreaterequest`, { headers: h });
    assert.equal(first.json.message, "You are not allowed to create requests");

    const t = await api.call("GET", `${E}/pwatranslation?entity=expense&locale=de`, { headers: h });
    assert.equal(t.status, 200, t.text);
    assert.equal(t.json.locale, "de");
    assert.deepEqual(t.json.translation, de);
    const user = await api.deps.store.users.byEmail(DEMO.approver);
    assert.equal(user?.locale, "de");
    // The email index still finds the user (the record was rewritten with its index).
    assert.equal((await api.deps.store.users.get(user!.oid))?.email, DEMO.approver);

    const s = await api.call("GET", `${E}/pwasupporturl`, { headers: h });
    assert.deepEqual(s.json, { supporturl: "/support/de.html" });
    const again = await api.call("GET", `${E}/pwacheckcancreaterequest`, { headers: h });
    assert.equal(again.json.message, de["request.cannotRequest"]);

    // Without ?locale the stored language is kept; an unknown one changes nothing.
    const kept = await api.call("GET", `${E}/pwatranslation?entity=expense`, { headers: h });
    assert.equal(kept.json.locale, "de");
    const it = await api.call("GET", `${E}/pwatranslation?locale=it`, { headers: h });
    assert.equal(it.json.locale, "de");
    const esp = await api.call("GET", `${E}/pwatranslation?locale=es-MX`, { headers: h });
    assert.equal(esp.json.locale, "es");
    assert.equal(
      (esp.json.translation as Record<string, string>)["pinpad.help"],
      es["pinpad.help"],
    );
  }),
);

Deno.test("[support] an external support and FAQ address is answered as configured", async () => {
  const file = await orgFile((org) => {
    org.organisation.supportUrl = "https://help.example.com/qcard";
    org.organisation.faqUrl = "https://help.example.com/faq";
  });
  const api = await testApp({ ORG_FILE: file });
  try {
    const { token } = await api.activate(DEMO.employee);
    const s = await api.call("GET", `${E}/pwasupporturl`, { headers: bearer(token) });
    assert.deepEqual(s.json, { supporturl: "https://help.example.com/qcard" });
    const init = await api.call("GET", "/qtservlet/initialize");
    assert.equal(init.json.faqUrl, "https://help.example.com/faq");
  } finally {
    await api.close();
    await Deno.remove(file);
  }
});

Deno.test("[support] secret questions in German and Spanish, English where the file has none", async () => {
  const file = await orgFile((org) => {
    for (const q of org.secretQuestions) if (q.oid !== "q-birth-city") delete q.text.de;
  });
  const api = await testApp({ ORG_FILE: file });
  try {
    const ask = async (email: string, lang: string) => {
      const r = await api.call("POST", `${E}/pwaactivationemail`, {
        body: { email },
        headers: { "device-id": api.newDeviceId(), "accept-language": lang },
      });
      assert.equal(r.status, 200, r.text);
      return (r.json.question as { text: string }).text;
    };
    // employee@ answers q-birth-city, approver@ q-first-pet (demo_org.json).
    assert.equal(await ask(DEMO.employee, "de-DE"), "In welcher Stadt sind Sie geboren?");
    assert.equal(await ask(DEMO.employee, "es"), "¿En qué ciudad nació?");
    assert.equal(await ask(DEMO.approver, "de"), "What was the name of your first pet?");
    assert.equal(await ask(DEMO.approver, "es"), "¿Cómo se llamaba su primera mascota?");
  } finally {
    await api.close();
    await Deno.remove(file);
  }
});

Deno.test("[support] the pages may be framed by our own origin only; the rest by nobody", async () => {
  const dir = await Deno.makeTempDir();
  const api = await testApp({ STATIC_DIR: dir });
  try {
    await writeSupportPages(dir, null);
    await Deno.writeTextFile(`${dir}/index.html`, "<!doctype html><title>QCard</title>");
    const app = createApp(api.deps, { frameSrc: ["https://help.example.com"] });
    const page = await app.request(supportPath("de"));
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await page.text(), /<h1>QCard-Hilfe und häufige Fragen<\/h1>/);
    const csp = page.headers.get("content-security-policy") ?? "";
    assert.match(csp, /frame-ancestors 'self'(;|$)/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.equal(page.headers.get("x-frame-options"), "SAMEORIGIN");

    const shell = await app.request("/index.html");
    await shell.body?.cancel();
    const shellCsp = shell.headers.get("content-security-policy") ?? "";
    assert.match(shellCsp, /frame-ancestors 'none'/);
    assert.match(shellCsp, /frame-src 'self' https:\/\/help\.example\.com(;|$)/);
    assert.equal(shell.headers.get("x-frame-options"), "DENY");
    // Only the folder of the pages: a look-alike path is not framed.
    const other = await app.request("/supportx/de.html");
    await other.body?.cancel();
    assert.equal(other.headers.get("x-frame-options"), "DENY");
  } finally {
    await api.close();
    await Deno.remove(dir, { recursive: true });
  }
});
