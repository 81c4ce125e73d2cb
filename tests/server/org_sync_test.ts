/**
 * Issue 34: `deno task import` applies the organisation file as a difference (server/org_sync/sync.ts):
 * the dry run writes nothing; a user gone from the file leaves (the leaver path); movers decide
 * for their new teams only; removed reference data is archived while an open request names it,
 * else removed; joiners get one activation mail; a second run changes nothing. Runs on Deno KV
 * and on PostgreSQL (QCARD_TEST_STORE=postgres).
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { parseOrg } from "../../server/org/parse.ts";
import type { Org } from "../../server/org/schema.ts";
import { applyOrg, diffOrg, formatDiff, isEmpty } from "../../server/org_sync/sync.ts";
import { approve, EQUIPMENT, everyone, list, submitted } from "./approvals_fixture.ts";
import { DIRECTOR } from "./requests_fixture.ts";
import { assertOk, getE, postE } from "./api.ts";
import { assertLeft, leaverFixture } from "./leavers_fixture.ts";

const DEMO_FILE = new URL("../../server/org/demo_org.json", import.meta.url);

/** The demo organisation file, changed by `edit` (raw JSON, as an operator edits it). */
/** The parts of the raw file these tests edit. */
type Entry = Record<string, unknown>;
type RawOrg = { users: Entry[]; teams: Entry[]; requestTypes: Entry[] };

async function demoWith(edit: (o: RawOrg) => void = () => {}): Promise<Org> {
  const raw = JSON.parse(await Deno.readTextFile(DEMO_FILE));
  edit(raw);
  return parseOrg(raw);
}

const without = (...emails: string[]) => (o: RawOrg) => {
  o.users = o.users.filter((u) => !emails.includes(String(u.email)));
};

Deno.test(
  "[org import] unchanged file: an empty difference, and applying it changes nothing",
  withApp(async (api) => {
    const org = await demoWith();
    const diff = await diffOrg(api.deps, org);
    assert.ok(isEmpty(diff), formatDiff(diff, false));
    const before = (await api.deps.outbox!.list({ limit: 1000 })).length;
    assert.ok(isEmpty(await applyOrg(api.deps, org)));
    assert.equal((await api.deps.outbox!.list({ limit: 1000 })).length, before);
  }),
);

Deno.test(
  "[org import] a user gone from the file leaves: devices, card, waiting request, owed vote",
  withApp(async (api) => {
    const f = await leaverFixture(api);
    const org = await demoWith(without(DEMO.manager));
    // The dry run says what leaving does and writes nothing.
    const dry = await diffOrg(api.deps, org);
    assert.deepEqual(dry.users.left.map((l) => [l.email, l.devices, l.cards.length]), [
      [DEMO.manager, 2, 1],
    ]);
    assert.equal((await api.deps.store.devices.forUser(f.mgr.oid)).length, 2);
    assert.match(formatDiff(dry, false), /- left {5}manager@demo\.example: 2 devices unregistered/);
    const applied = await applyOrg(api.deps, org);
    assert.equal(applied.users.left.length, 1);
    await assertLeft(api, f);
    // A second run changes nothing.
    assert.ok(isEmpty(await diffOrg(api.deps, org)));
    assert.ok(isEmpty(await applyOrg(api.deps, org)));
  }),
);

Deno.test(
  "[org import] a level nobody is left to decide is reported, not left waiting",
  withApp(async (api) => {
    // The manager's own request waits at Management (manager, director): without the director,
    // nobody may decide it (an author never decides their own request).
    const { mgr, fin } = await everyone(api);
    const vote = await submitted(api, mgr.h);
    assertOk(await approve(api, fin.h, vote.oid));
    const diff = await diffOrg(api.deps, await demoWith(without(DIRECTOR)));
    const stranded = diff.users.left.flatMap((l) => l.stranded);
    assert.ok(stranded.length >= 1);
    assert.deepEqual(
      [stranded[0].approvalOid, stranded[0].level, stranded[0].remaining],
      [vote.oid, 2, 0],
    );
    assert.match(formatDiff(diff, false), /level 2: nobody left to decide it/);
  }),
);

Deno.test(
  "[org import] a mover decides for the new team from the next call, votes cast stay",
  withApp(async (api) => {
    const { emp, fin, mgr } = await everyone(api);
    const a = await submitted(api, emp.h);
    assertOk(await approve(api, fin.h, a.oid));
    const b = await submitted(api, emp.h);
    // The manager moves from Management to Finance.
    const org = await demoWith((o: RawOrg) => {
      o.users.find((u) => u.email === DEMO.manager)!.teams = [
        "team-finance",
        "team-employees",
      ];
    });
    const diff = await applyOrg(api.deps, org);
    assert.deepEqual(diff.users.changed.map((c) => [c.email, c.fields]), [[DEMO.manager, [
      "teams",
    ]]]);
    assert.match(
      formatDiff(diff, true),
      /~ changed {2}manager@demo\.example: teams \["team-management","team-employees"\] → \["team-finance","team-employees"\]/,
    );
    // Level 2 of `a` is Management's: no longer the manager's; level 1 of `b` is Finance's.
    const rows = await list(api, mgr.h);
    assert.ok(!rows.find((r) => r.oid === a.oid)?.canApprove);
    assert.equal(rows.find((r) => r.oid === b.oid)?.canApprove, true);
    assertOk(await approve(api, mgr.h, b.oid));
    const votes = (await api.deps.store.approvals.get(a.oid)).value!.votes;
    assert.deepEqual(votes.map((v) => v.userOid), [fin.oid]);
  }),
);

Deno.test(
  "[org import] removed reference data: archived while an open request names it, else removed",
  withApp(async (api) => {
    const { emp } = await everyone(api);
    const open = await submitted(api, emp.h, {
      typeOid: "type-equipment",
      amount: 900,
      costCenterOid: "cc-it",
      GLOid: "gl-hardware",
      projectOid: "prj-cloud",
    });
    const types = async () => {
      const r = await getE(api, emp.h, "pwatypes");
      assertOk(r);
      return (r.json.types as { oid: string }[]).map((t) => t.oid);
    };
    assert.ok((await types()).includes("type-equipment"));
    // Equipment is named by the open request; Supplies by nothing.
    const org = await demoWith((o: RawOrg) => {
      o.requestTypes = o.requestTypes.filter((t) =>
        t.oid !== "type-equipment" && t.oid !== "type-supplies"
      );
    });
    const diff = await applyOrg(api.deps, org);
    const rt = diff.collections.find((c) => c.prefix === "rtype")!;
    assert.deepEqual(rt.removed.map((r) => [r.key, r.fate]), [
      ["type-equipment", "archived"],
      ["type-supplies", "removed"],
    ]);
    assert.ok(!(await types()).includes("type-equipment"));
    assert.ok(!(await types()).includes("type-supplies"));
    // Still shown on the open request, which can still be decided.
    const e = await getE(api, emp.h, `pwaexpenseentity?record=${open.request.oid}`);
    assertOk(e);
    assert.equal(await api.deps.store.org.get("rtype", "type-supplies"), null);
    assert.ok(await api.deps.store.org.get("rtype", "type-equipment"));
    assert.ok(isEmpty(await diffOrg(api.deps, org)));
    // Not for a new request, even asked for directly.
    const again = await postE(api, emp.h, "pwaexpenserequestcreate", { expenseRequest: EQUIPMENT });
    assert.equal(again.status, 422, again.text);
    assert.equal(again.json.error, "type_unknown");
    // Back in the file: offered again.
    await applyOrg(api.deps, await demoWith());
    assert.ok((await types()).includes("type-equipment"));
    assertOk(await postE(api, emp.h, "pwaexpenserequestcreate", { expenseRequest: EQUIPMENT }));
  }),
);

Deno.test(
  "[org import] a joiner gets one activation mail; a renamed team is a change",
  withApp(async (api) => {
    const org = await demoWith((o: RawOrg) => {
      o.users.push({ ...o.users[0], email: "joiner@demo.example", fname: "Jo" });
      o.teams.find((t) => t.oid === "team-finance")!.teamName = "Finance & Control";
    });
    const diff = await applyOrg(api.deps, org);
    assert.deepEqual(diff.users.added, ["joiner@demo.example"]);
    const teams = diff.collections.find((c) => c.prefix === "team")!;
    assert.deepEqual(teams.changed.map((c) => [c.key, c.fields]), [["team-finance", ["teamName"]]]);
    assert.match(
      formatDiff(diff, true),
      /~ changed {2}team-finance: teamName "Finance" → "Finance & Control"/,
    );
    const mails = () => api.deps.outbox!.list({ to: "joiner@demo.example", limit: 10 });
    assert.equal((await mails()).length, 1);
    assert.ok(isEmpty(await applyOrg(api.deps, org)));
    assert.equal((await mails()).length, 1);
    await api.activate("joiner@demo.example");
  }),
);

Deno.test(
  "[org import] a leaver back in the file is a joiner again: one activation mail, a way in",
  withApp(async (api) => {
    await applyOrg(api.deps, await demoWith(without(DIRECTOR)));
    const left = await api.deps.store.users.byEmail(DIRECTOR);
    assert.ok(left?.leftAt);
    const before = (await api.deps.outbox!.list({ to: DIRECTOR, limit: 20 })).length;
    const back = await applyOrg(api.deps, await demoWith());
    assert.deepEqual(back.users.added, [DIRECTOR]);
    const user = await api.deps.store.users.byEmail(DIRECTOR);
    assert.equal(user?.oid, left.oid);
    assert.equal(user?.leftAt, undefined);
    assert.deepEqual(user?.teams, ["team-management"]);
    assert.equal((await api.deps.outbox!.list({ to: DIRECTOR, limit: 20 })).length, before + 1);
  }),
);

Deno.test("[org import] the command: --dry-run writes nothing, then applies, then nothing", async () => {
  const dir = await Deno.makeTempDir();
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "server/app/import_cli.ts", DEMO_FILE.pathname, ...args],
      env: { KV_PATH: `${dir}/qcard.kv`, PIN_HASH_ITERATIONS: "1000" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return text;
  };
  try {
    const dry = await run("--dry-run");
    assert.match(dry, /Demo Company: dry run, nothing written/);
    assert.match(dry, /\+ added {4}employee@demo\.example \(activation e-mail queued\)/);
    assert.match(await run("--dry-run"), /users 5 added/);
    const applied = await run();
    assert.match(applied, /Demo Company: applied/);
    assert.match(applied, /users 5 added, 0 changed, 0 left/);
    const again = await run("--dry-run");
    assert.match(again, /Users\n {2}no change/);
    assert.match(again, /users 0 added, 0 changed, 0 left; reference data 0 added, 0 changed, 0/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
