import assert from "node:assert/strict";
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
