import assert from "node:assert/strict";
import { contract, type Endpoint } from "../../client/shared/contract/mod.ts";
import { OVERVIEW_TEAMS_OLD_PATH } from "../../client/shared/contract/approvals.ts";
import { CONTENT_PATH, PREVIEW_PATH, UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { login } from "./api.ts";

// spec §7, paths exactly as it spells them: the server answers every contract path (and
// the non-JSON calls' shared paths) where the contract puts it. tests/unit/spec_paths_test.ts
// checks those paths against spec §7.

type Res = Awaited<ReturnType<TestApi["call"]>>;
/** The answer of an unknown API path (server/app/app.ts): what no served path may give. */
const unknown = (r: Res) => r.status === 404 && r.json?.message === "No such call";

/** Every contract endpoint as [group.name, method, path]; pwaunregister last (it signs out). */
function endpoints(): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const [group, eps] of Object.entries(contract)) {
    for (const [name, ep] of Object.entries(eps as Record<string, Endpoint>)) {
      out.push([`${group}.${name}`, ep.method, ep.path]);
    }
  }
  return out.sort((a, b) =>
    Number(a[0] === "session.unregister") - Number(b[0] === "session.unregister")
  );
}

Deno.test(
  "[paths] an unknown path answers 404 'No such call' (what the tests below tell apart)",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const r = await api.call("GET", "/scmapi/expense/pwanosuchcall", { headers: h });
    assert.ok(unknown(r), `${r.status} ${r.text}`);
    const wrongPrefix = await api.call("GET", "/scmapi/approval/pwalists", { headers: h });
    assert.ok(unknown(wrongPrefix), `${wrongPrefix.status} ${wrongPrefix.text}`);
  }),
);

Deno.test(
  "[paths] every contract endpoint is served at its path and method (bearer, empty input)",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const headers = { ...h, "device-id": api.newDeviceId() };
    const notServed: string[] = [];
    for (const [name, method, path] of endpoints()) {
      const r = await api.call(method, path, { headers, body: method === "POST" ? {} : undefined });
      assert.ok(r.status < 500, `${name} ${method} ${path}: server error ${r.status} ${r.text}`);
      if (unknown(r)) notServed.push(`${name} ${method} ${path}`);
    }
    assert.deepEqual(
      notServed,
      [],
      `contract calls the server does not serve:\n${notServed.join("\n")}`,
    );
  }),
);

Deno.test(
  "[paths] the multipart upload, the blob downloads and the old pwaoverviewteams path are served",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.approver);
    for (
      const [method, path] of [
        ["POST", UPLOAD_PATH],
        ["GET", CONTENT_PATH],
        ["GET", PREVIEW_PATH],
        ["GET", OVERVIEW_TEAMS_OLD_PATH],
      ]
    ) {
      const r = await api.call(method, path, { headers: h });
      assert.ok(r.status < 500, `${method} ${path}: server error ${r.status} ${r.text}`);
      assert.ok(!unknown(r), `${method} ${path} is not served`);
    }
    // The alias answers what §7's path answers.
    const now = await api.call("GET", contract.approvals.overviewTeams.path, { headers: h });
    const old = await api.call("GET", OVERVIEW_TEAMS_OLD_PATH, { headers: h });
    assert.equal(now.status, 200, now.text);
    assert.equal(old.status, 200, old.text);
    assert.deepEqual(old.json, now.json);
    assert.ok(Array.isArray(now.json.teamlist));
  }),
);
