import assert from "node:assert/strict";
import { brotliDecompressSync } from "node:zlib";
import { parseOrg } from "../../server/org/parse.ts";
import { testApp } from "../helpers.ts";

const demo = JSON.parse(await Deno.readTextFile("server/org/demo_org.json"));

Deno.test("[appcolor] the organisation's appColor and cardColor are what appcolor answers", async () => {
  const file = await Deno.makeTempFile({ suffix: ".json" });
  const org = {
    ...demo,
    settings: { ...demo.settings, appColor: "#7a1f5c", cardColor: "#0a5c8a" },
  };
  await Deno.writeTextFile(file, JSON.stringify(org));
  const api = await testApp({ ORG_FILE: file });
  try {
    const r = await api.call("GET", "/qtservlet//appcolor");
    assert.equal(r.res.status, 200);
    assert.deepEqual(r.json, { appcolor: "#7a1f5c", cardcolor: "#0a5c8a" });
  } finally {
    await api.close();
    await Deno.remove(file);
  }
});

Deno.test("[appcolor] without colours in the file, spec §9's slate and green", async () => {
  const { appColor: _a, cardColor: _c, ...settings } = demo.settings;
  const org = parseOrg({ ...demo, settings });
  assert.equal(org.settings.appColor, "#2f3e4e");
  assert.equal(org.settings.cardColor, "#1f7a4d");
  const api = await testApp();
  try {
    const r = await api.call("GET", "/qtservlet//appcolor");
    assert.deepEqual(r.json, { appcolor: "#2f3e4e", cardcolor: "#1f7a4d" });
  } finally {
    await api.close();
  }
});

Deno.test("[appcolor] a colour that is not #rrggbb is refused at import", () => {
  for (const bad of ["red", "#12345", "#1234567", "url(x)", "#2f3e4e;color:red"]) {
    assert.throws(
      () => parseOrg({ ...demo, settings: { ...demo.settings, appColor: bad } }),
      /colour/,
      bad,
    );
  }
});

/** `'sha256-…'` as CSP names an inline style. */
async function cspHash(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return `'sha256-${btoa(String.fromCharCode(...d))}'`;
}
const styleSrc = (r: Response) =>
  (r.headers.get("content-security-policy") ?? "").split(";").map((d) => d.trim())
    .find((d) => d.startsWith("style-src")) ?? "";

Deno.test("[appcolor] the first screens carry the stylesheet inline, allowed by its hash, and wear the organisation's colours", async () => {
  const root = await Deno.makeTempDir({ prefix: "qcard-shell-" });
  const file = `${root}/org.json`;
  const css = ".pad-screen{background:var(--theme)}";
  const shell = (title: string) =>
    `<!doctype html><html><head><meta name="theme-color" content="#2f3e4e"><style>${css}</style>` +
    `<script type="module" src="/assets/boot-A.js"></script></head><body>${title}</body></html>`;
  await Deno.writeTextFile(`${root}/index.html`, shell("activate"));
  await Deno.writeTextFile(`${root}/unlock.html`, shell("PIN pad"));
  await Deno.writeTextFile(`${root}/app.html`, "<!doctype html><title>app</title>");
  const get = (api: Awaited<ReturnType<typeof testApp>>, path: string, cookie = "") =>
    api.app.request(path, { headers: { cookie, "accept-encoding": "identity" } });

  // spec §9's colours: the build's file as it is, its style named by its hash.
  let api = await testApp({ STATIC_DIR: root });
  try {
    const r = await get(api, "/");
    assert.equal(await r.text(), shell("activate"));
    assert.equal(styleSrc(r), `style-src 'self' ${await cspHash(css)}`);
    const app = await get(api, "/app.html");
    await app.body?.cancel();
    assert.equal(styleSrc(app), "style-src 'self'", "no inline style, no hash");
  } finally {
    await api.close();
  }

  // The organisation's own colours: in the first paint's HTML, each style by its hash.
  await Deno.writeTextFile(
    file,
    JSON.stringify({
      ...demo,
      settings: { ...demo.settings, appColor: "#7a1f5c", cardColor: "#0a5c8a" },
    }),
  );
  api = await testApp({ STATIC_DIR: root, ORG_FILE: file });
  try {
    for (
      const [path, cookie, title] of [["/", "", "activate"], ["/", "qc_pinlength=6", "PIN pad"]]
    ) {
      const r = await get(api, path, cookie);
      const html = await r.text();
      assert.ok(html.includes(`<body>${title}</body>`), title);
      assert.ok(html.includes('<meta name="theme-color" content="#7a1f5c">'), "theme-color");
      const theme = ":root{--theme-request:#7a1f5c;--theme-approval:#0a5c8a}";
      assert.ok(html.includes(`<style>${theme}</style></head>`), html);
      assert.equal(styleSrc(r), `style-src 'self' ${await cspHash(css)} ${await cspHash(theme)}`);
      // The compressed copies say the same.
      const br = await api.app.request(path, { headers: { cookie, "accept-encoding": "br" } });
      assert.equal(br.headers.get("content-encoding"), "br");
      const plain = brotliDecompressSync(new Uint8Array(await br.arrayBuffer())).toString();
      assert.equal(plain, html);
      assert.notEqual(br.headers.get("etag"), r.headers.get("etag"));
    }
  } finally {
    await api.close();
    await Deno.remove(root, { recursive: true });
  }
});
