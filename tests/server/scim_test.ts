/**
 * SCIM 2.0 provisioning (issue 34; RFC 7643/7644): the request sequences of Okta's and Microsoft
 * Entra ID's provisioning validators, the SCIM_TOKEN bearer, SCIM error bodies, and deactivation
 * as the leaver path. Runs on Deno KV and on PostgreSQL (QCARD_TEST_STORE=postgres).
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, testApp, withApp } from "../helpers.ts";
import { assertLeft, leaverFixture } from "./leavers_fixture.ts";
import { approve, everyone, submitted } from "./approvals_fixture.ts";
import { DIRECTOR } from "./requests_fixture.ts";

const TOKEN = "scim-test-token-0123456789abcdefghijklmnop";
const ENV = { SCIM_TOKEN: TOKEN };
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

type Json = Record<string, unknown>;

async function scim(
  api: TestApi,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = TOKEN,
) {
  const headers: Record<string, string> = { accept: "application/scim+json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/scim+json";
  const res = await api.app.request(`/scim/v2${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : null) as Json, res, text };
}

function assertScimError(r: Awaited<ReturnType<typeof scim>>, status: number, scimType?: string) {
  assert.equal(r.status, status, r.text);
  assert.match(r.res.headers.get("content-type") ?? "", /application\/scim\+json/);
  assert.deepEqual(r.json.schemas, [ERROR]);
  assert.equal(r.json.status, String(status));
  assert.equal(typeof r.json.detail, "string");
  if (scimType) assert.equal(r.json.scimType, scimType);
}

const mails = (api: TestApi, to: string) => api.deps.outbox!.list({ to, limit: 20 });

Deno.test(
  "[scim] Okta's validator sequence: list, filter, create, get, duplicate, unknown, deactivate",
  withApp(async (api) => {
    const email = "okta.user@demo.example";
    const first = await scim(api, "GET", "/Users?count=1&startIndex=1");
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.json.schemas, [LIST]);
    assert.equal((first.json.Resources as Json[]).length, 1);
    assert.ok((first.json.totalResults as number) >= 5);
    const none = await scim(
      api,
      "GET",
      `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`,
    );
    assert.equal(none.json.totalResults, 0);
    const created = await scim(api, "POST", "/Users", {
      schemas: [USER],
      userName: email,
      name: { givenName: "Olga", familyName: "Kta" },
      emails: [{ primary: true, value: email, type: "work" }],
      displayName: "Olga Kta",
      locale: "en-US",
      externalId: "00u1abcd",
      groups: [],
      password: "ignored-1234",
      active: true,
    });
    assert.equal(created.status, 201, created.text);
    const id = String(created.json.id);
    assert.equal(created.json.userName, email);
    assert.equal(created.json.active, true);
    assert.deepEqual(created.json.name, {
      givenName: "Olga",
      familyName: "Kta",
      formatted: "Olga Kta",
    });
    // The joiner's activation mail, once.
    assert.equal((await mails(api, email)).length, 1);
    const got = await scim(api, "GET", `/Users/${id}`);
    assert.equal(got.status, 200);
    assert.equal(got.json.id, id);
    const found = await scim(
      api,
      "GET",
      `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`,
    );
    assert.equal(found.json.totalResults, 1);
    assert.equal((found.json.Resources as Json[])[0].id, id);
    assertScimError(
      await scim(api, "POST", "/Users", { schemas: [USER], userName: email }),
      409,
      "uniqueness",
    );
    assertScimError(await scim(api, "GET", "/Users/010101010101"), 404);
    // The user activates, then Okta deactivates them: the leaver path.
    const { token } = await api.activate(email);
    const ok = await api.call("GET", "/scmapi/expense/pwalists", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(ok.status, 200);
    const off = await scim(api, "PATCH", `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { active: false } }],
    });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.json.active, false);
    const after = await api.call("GET", "/scmapi/expense/pwalists", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(after.status, 401);
    assert.equal((await mails(api, email)).length, 1);
    // Back again: active, and a fresh activation mail.
    const on = await scim(api, "PATCH", `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { active: true } }],
    });
    assert.equal(on.json.active, true);
    assert.equal((await mails(api, email)).length, 2);
  }, ENV),
);

Deno.test(
  "[scim] Okta's groups: create, add and remove members, rename, delete; membership is the team",
  withApp(async (api) => {
    const emp = (await api.deps.store.users.byEmail(DEMO.employee))!;
    const g = await scim(api, "POST", "/Groups", {
      schemas: [GROUP],
      displayName: "Travel desk",
      members: [],
    });
    assert.equal(g.status, 201, g.text);
    const id = String(g.json.id);
    const add = await scim(api, "PATCH", `/Groups/${id}`, {
      schemas: [PATCH],
      Operations: [{
        op: "add",
        path: "members",
        value: [{ value: emp.oid, display: DEMO.employee }],
      }],
    });
    assert.equal(add.status, 200, add.text);
    assert.deepEqual((add.json.members as Json[]).map((m) => m.value), [emp.oid]);
    assert.ok((await api.deps.store.users.get(emp.oid))!.teams.includes(id));
    const user = await scim(api, "GET", `/Users/${emp.oid}`);
    assert.ok(
      (user.json.groups as Json[]).some((x) => x.value === id && x.display === "Travel desk"),
    );
    const renamed = await scim(api, "PATCH", `/Groups/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { id, displayName: "Travel" } }],
    });
    assert.equal(renamed.json.displayName, "Travel");
    assert.equal((await api.deps.store.org.team(id))?.teamName, "Travel");
    const removed = await scim(api, "PATCH", `/Groups/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: "remove", path: `members[value eq "${emp.oid}"]` }],
    });
    assert.deepEqual(removed.json.members, []);
    assert.ok(!(await api.deps.store.users.get(emp.oid))!.teams.includes(id));
    assert.equal((await scim(api, "DELETE", `/Groups/${id}`)).status, 204);
    assertScimError(await scim(api, "GET", `/Groups/${id}`), 404);
  }, ENV),
);

Deno.test(
  '[scim] Entra ID\'s validator sequence: filter, create, filter, patch active "False", groups, delete',
  withApp(async (api) => {
    const email = "entra.user@demo.example";
    const filter = `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`;
    assert.equal((await scim(api, "GET", filter)).json.totalResults, 0);
    const created = await scim(api, "POST", "/Users", {
      schemas: [USER, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "entra-7f3a",
      userName: email,
      active: true,
      displayName: "Erin Tra",
      emails: [{ primary: true, type: "work", value: email }],
      meta: { resourceType: "User" },
      name: { formatted: "Erin Tra", familyName: "Tra", givenName: "Erin" },
      roles: [],
    });
    assert.equal(created.status, 201, created.text);
    const id = String(created.json.id);
    const listed = await scim(api, "GET", filter);
    assert.equal(listed.json.totalResults, 1);
    const byExt = await scim(
      api,
      "GET",
      `/Users?filter=${encodeURIComponent('externalId eq "entra-7f3a"')}`,
    );
    assert.equal((byExt.json.Resources as Json[])[0].id, id);
    // Entra's attribute updates: Replace with paths, unknown attributes ignored.
    const upd = await scim(api, "PATCH", `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: "Replace", path: "name.familyName", value: "Traore" },
        { op: "Add", path: 'emails[type eq "work"].value', value: email },
        { op: "Replace", path: "title", value: "Buyer" },
      ],
    });
    assert.equal(upd.status, 200, upd.text);
    assert.equal((upd.json.name as Json).familyName, "Traore");
    // Groups: create (filter first), add and remove members in Entra's form.
    const gFilter = `/Groups?excludedAttributes=members&filter=${
      encodeURIComponent('displayName eq "Procurement"')
    }`;
    assert.equal((await scim(api, "GET", gFilter)).json.totalResults, 0);
    const g = await scim(api, "POST", "/Groups", {
      externalId: "g-1",
      displayName: "Procurement",
      members: [],
    });
    const gid = String(g.json.id);
    const gl = await scim(api, "GET", gFilter);
    assert.equal(gl.json.totalResults, 1);
    assert.equal((gl.json.Resources as Json[])[0].members, undefined);
    await scim(api, "PATCH", `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: "Add", path: "members", value: [{ value: id }] }],
    });
    assert.deepEqual((await api.deps.store.users.get(id))!.teams, [gid]);
    await scim(api, "PATCH", `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: "Remove", path: "members", value: [{ value: id }] }],
    });
    assert.deepEqual((await api.deps.store.users.get(id))!.teams, []);
    const off = await scim(api, "PATCH", `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: "Replace", path: "active", value: "False" }],
    });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.json.active, false);
    assert.ok((await api.deps.store.users.get(id))?.leftAt);
    assert.equal((await scim(api, "DELETE", `/Users/${id}`)).status, 204);
    // The record stays for history, inactive.
    assert.equal((await scim(api, "GET", `/Users/${id}`)).json.active, false);
  }, ENV),
);

Deno.test(
  "[scim] active:false is the leaver path: devices, card, waiting request, owed vote",
  withApp(async (api) => {
    const f = await leaverFixture(api);
    const r = await scim(api, "PATCH", `/Users/${f.mgr.oid}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", path: "active", value: false }],
    });
    assert.equal(r.status, 200, r.text);
    await assertLeft(api, f);
  }, ENV),
);

Deno.test(
  "[scim] wrong or no token → 401; malformed bodies → 400 with SCIM's error JSON",
  withApp(async (api) => {
    assertScimError(await scim(api, "GET", "/Users", undefined, null), 401);
    assertScimError(await scim(api, "GET", "/Users", undefined, `${TOKEN}x`), 401);
    assertScimError(await scim(api, "POST", "/Users", "{not json", TOKEN), 400, "invalidSyntax");
    assertScimError(
      await scim(api, "POST", "/Users", { name: { givenName: "No" } }),
      400,
      "invalidSyntax",
    );
    assertScimError(
      await scim(api, "POST", "/Users", { userName: "not-an-address" }),
      400,
      "invalidValue",
    );
    const emp = (await api.deps.store.users.byEmail(DEMO.employee))!;
    assertScimError(
      await scim(api, "PATCH", `/Users/${emp.oid}`, { Operations: [] }),
      400,
      "invalidSyntax",
    );
    assertScimError(
      await scim(api, "PATCH", `/Users/${emp.oid}`, {
        Operations: [{ op: "replace", path: "active", value: "maybe" }],
      }),
      400,
      "invalidValue",
    );
    assertScimError(
      await scim(api, "GET", `/Users?filter=${encodeURIComponent('userName sw "a"')}`),
      400,
      "invalidFilter",
    );
    assertScimError(await scim(api, "POST", "/Groups", { members: [] }), 400, "invalidSyntax");
  }, ENV),
);

Deno.test("[scim] off without SCIM_TOKEN, and in relay mode: 404", async () => {
  for (const env of [{}, { ...ENV, UPSTREAM_URL: "http://127.0.0.1:9" }]) {
    const api = await testApp(env);
    try {
      const r = await scim(api, "GET", "/Users");
      assert.equal(r.status, 404, r.text);
    } finally {
      await api.close();
    }
  }
});

Deno.test(
  "[scim] deactivating the last possible approver of a waiting level reports it to the operator",
  withApp(async (api) => {
    // The manager's own request waits at Management (manager, director): without the director,
    // nobody may decide it.
    const { mgr, fin } = await everyone(api);
    const vote = await submitted(api, mgr.h);
    assert.equal((await approve(api, fin.h, vote.oid)).status, 200);
    const dir = (await api.deps.store.users.byEmail(DIRECTOR))!;
    const lines: string[] = [];
    const warn = console.warn;
    console.warn = (line: string) => lines.push(line);
    try {
      const r = await scim(api, "PATCH", `/Users/${dir.oid}`, {
        schemas: [PATCH],
        Operations: [{ op: "replace", path: "active", value: false }],
      });
      assert.equal(r.status, 200, r.text);
    } finally {
      console.warn = warn;
    }
    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0]);
    assert.equal(line.level, "warn");
    assert.match(
      line.msg,
      new RegExp(`approval ${vote.oid} .*level 2, has nobody left to decide it`),
    );
  }, ENV),
);
