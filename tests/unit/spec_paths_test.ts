import assert from "node:assert/strict";
import { contract, type Endpoint } from "../../client/shared/contract/mod.ts";
import { CONTENT_PATH, PREVIEW_PATH, UPLOAD_PATH } from "../../client/shared/contract/documents.ts";

// spec §7, paths exactly as it spells them: a relay to a real upstream breaks on any other
// spelling. Every call of spec §7 is checked against the contract (the one source of paths
// for the server's route() and the client's call()), and every contract call is checked to
// be used by the client.

/**
 * Every call of spec §7 ("## 7. The calls it makes" in /work/shared/spec/product-spec.md),
 * as "METHOD path", paths under /bonita without their query, in the spec's order. Extracted
 * once with specCalls() below: CI runs on a clean clone of this repository, where the spec
 * is absent; when it is present, a test asserts this list still equals what the spec says.
 * Bare names take their list's prefix: "Reads (GET, under /scmapi/expense/ unless noted)",
 * "Writes (POST)" (no prefix of its own: the reads' /scmapi/expense/, like every write of
 * "Registration and session"), "Approvals (/scmapi/approval/)". The two calls without a
 * fixed path keep the spec's placeholder.
 */
export const SPEC_CALLS = [
  "GET /qtservlet/initialize",
  "GET /qtservlet//appcolor",
  "GET /scmapi/expense/pwatranslation",
  "GET /scmapi/expense/pwalists",
  "GET /qtservlet/expense/pwalists",
  "POST /scmapi/expense/pwaregisterpushtoken",
  "POST /scmapi/expense/pwacheckvalidation",
  "POST /scmapi/expense/pwaactivationemail",
  "POST /scmapi/expense/pwasecretanswer",
  "POST /scmapi/expense/pwaconfirmpin",
  "POST /scmapi/expense/pwacheckregistered",
  "POST /scmapi/expense/pwacheckpinvalid",
  "POST /scmapi/expense/pwaunregister",
  "GET /scmapi/expense/pwasupporturl",
  "GET /scmapi/approval/pwateamusers",
  "GET /scmapi/expense/pwareveal3ds",
  "GET /scmapi/expense/pwaexpenseentity",
  "GET /scmapi/expense/pwaexpensecard",
  "GET /scmapi/expense/pwaexpensecardobfuscated",
  "GET /scmapi/expense/pwaexpensecardreveal",
  "GET /scmapi/expense/pwaexpensecardsecure",
  "GET /scmapi/expense/pwaexpensereceipts",
  "GET /scmapi/expense/pwaaccounts",
  "GET /scmapi/expense/pwasecretquestions",
  "GET /scmapi/expense/pwavatcodes",
  "GET /scmapi/expense/pwaaccountingcodes",
  "GET /scmapi/expense/pwareceipttypes",
  "GET /scmapi/expense/pwaapprovals",
  "GET /scmapi/expense/pwaexpensecomments",
  "GET /scmapi/expense/pwauserfullname",
  "GET /scmapi/expense/pwaprojectcodes",
  "GET /scmapi/expense/pwaledgers",
  "GET /scmapi/expense/pwatypes",
  "GET /scmapi/expense/pwaccodes",
  "GET /scmapi/expense/pwacurrencylist",
  "GET /scmapi/expense/pwacountrylist",
  "GET /scmapi/expense/pwaoverviewteams",
  "GET /scmapi/expense/pwacheckcancreaterequest",
  "GET /scmapi/expense/pwacheckupload",
  "GET /scmapi/expense/pwacheckdocumentcontent",
  "GET /scmapi/expense/pwacheckadddocumentcontent",
  "GET /scmapi/expense/pwaexpensereceiptdocuments",
  "GET /scmapi/expense/pwapreview",
  "GET /scmapi/expense/pwadocumentcontent",
  "GET /scmapi/expense/pwadeletecomment",
  "GET /scmapi/expense/pwasetreceiptdotax",
  "GET /scmapi/expense/pwadeletedocument",
  "POST /scmapi/expense/pwaflip",
  "POST /scmapi/expense/pwasaveReceiptNote",
  "POST /scmapi/expense/pwaupdatereviewedtransactions",
  "POST /scmapi/expense/pwacheckneedrecreate",
  "POST /scmapi/expense/pwareissueapproval",
  "POST /scmapi/expense/pwamodify",
  "POST /scmapi/expense/pwaexpenserequestcreate",
  "POST /scmapi/expense/pwasubmit",
  "POST /scmapi/expense/pwacancel",
  "POST /scmapi/expense/pwaclose",
  "POST /scmapi/expense/pwanewqcard",
  "POST /scmapi/expense/pwasetexpensedosecure",
  "POST /scmapi/expense/pwaexpensedosecurevalidatepin",
  "POST /scmapi/expense/pwaauploaddocument",
  "POST /scmapi/expense/pwaaddcomment",
  "GET /scmapi/approval/pwagetvotes",
  "POST /scmapi/approval/pwaapprove",
  "POST /scmapi/approval/pwareject",
  "GET /scmapi/approval/pwagetComments",
  "GET /scmapi/approval/pwalistrequests",
  "GET /scmapi/approval/pwagetapprovaldetails",
  "POST /scmapi/approval/pwacomments",
  "POST {supplied URL}",
  "DELETE {remoteUrl}/proxy",
];

/**
 * The §7 calls that are not plain JSON contract endpoints: each with the path constant the
 * client and server share (when it has a fixed path), what handles it, and the client code
 * that makes it (file and the text that shows the call), or why the client does not.
 */
export const NOT_JSON: Record<
  string,
  { path: string | null; where: string; client: [file: string, text: string] | { none: string } }
> = {
  "POST /scmapi/expense/pwaauploaddocument": {
    path: UPLOAD_PATH,
    where: "multipart upload: client/api/files.ts uploadFile; server/routes/documents.ts",
    client: ["client/actions/files.ts", "uploadFile(UPLOAD_PATH"],
  },
  "GET /scmapi/expense/pwadocumentcontent": {
    path: CONTENT_PATH,
    where: "blob download: client/api/files.ts fetchFile; server/routes/documents.ts",
    client: ["client/actions/receipts.ts", "fetchFile(CONTENT_PATH"],
  },
  "GET /scmapi/expense/pwapreview": {
    path: PREVIEW_PATH,
    where: "blob download: client/api/files.ts fetchFile; server/routes/documents.ts, handed " +
      "out as each document's previewUrl",
    client: ["client/actions/receipts.ts", "fetchFile(PREVIEW_PATH"],
  },
  "POST {supplied URL}": {
    path: null,
    where: "comment upload to the URL a comment list supplies (an upstream in relay mode: " +
      "server/relay/comment_upload.ts rewrites it); without one, comments go through the " +
      "contract's requests.addComment (pwaaddcomment)",
    client: ["client/actions/comment_upload.ts", 'path: path.slice("/bonita".length)'],
  },
  "DELETE {remoteUrl}/proxy": {
    path: null,
    where: "remote document delete (token in the query, no bearer): client/api/files.ts " +
      "deleteRemote; the document service server/docservice/routes.ts",
    client: ["client/actions/files.ts", "deleteRemote(r.remoteUrl, r.remoteToken)"],
  },
};

/**
 * §7 calls the contract serves otherwise, each with the contract's "METHOD path" and why.
 * Each is a relay hazard to fix in the contract (then take it off here: a test insists).
 */
export const KNOWN_MISMATCHES: Record<string, { contract: string; why: string }> = {};

/**
 * Contract endpoints the client does not call, each with why. Served for relays and older
 * clients; an entry that the client starts calling must leave this list (a test insists).
 */
export const NOT_CALLED: Record<string, string> = {
  "session.publicLists": "§7's tokenless pwalists: an unactivated device shows only the " +
    "activation screens and reads no lists",
  "session.secretQuestions": "lost activation reads the question from pwaactivationemail",
  "requests.approvals": "a request's approval teams come with it (pwaexpenseentity, pwalists)",
  "requests.userFullName": "rows and details carry the author's full name",
  "approvals.votes": "votes come with pwagetapprovaldetails",
  "approvals.teamUsers": "team members come with pwaoverviewteams and the approval details",
};

const ROOT = new URL("../../", import.meta.url);
/** The shared path constants of the calls that are not JSON endpoints, by name. */
const PATHS: Record<string, string> = { UPLOAD_PATH, CONTENT_PATH, PREVIEW_PATH };
const SPEC = new URL("../../../shared/spec/product-spec.md", import.meta.url);

/** Extracts §7's calls from the spec's text (see SPEC_CALLS for the rules). */
export function specCalls(spec: string): string[] {
  const section = /^## 7\..*$([\s\S]*?)^## 8\./m.exec(spec);
  if (!section) throw new Error("spec §7 not found");
  const out: string[] = [];
  let prefix = "";
  let headMethod = "";
  for (const line of section[1].split("\n")) {
    if (!line.trim()) continue;
    if (!line.startsWith("- ")) {
      // A list heading: its prefix (kept when it names none) and its method.
      const p = /(\/scmapi\/\w+)\/?/.exec(line);
      if (p) prefix = p[1];
      headMethod = /\b(GET|POST)\b/.exec(line)?.[1] ?? "";
      continue;
    }
    let bulletMethod = /^- [\w ]+ by (GET|POST):/.exec(line)?.[1] ?? headMethod;
    const special = /\b(GET|POST|DELETE) (to a supplied URL|\{remoteUrl\}\/\w+)/.exec(line);
    if (special) {
      const where = special[2] === "to a supplied URL" ? "{supplied URL}" : special[2];
      out.push(`${special[1]} ${where}`);
      continue;
    }
    for (const item of line.slice(2).split(/;|\. (?=[A-Z])/)) {
      const lead = /^\s*(?:[\w ]+: )?(GET|POST)\b/.exec(item)?.[1];
      if (lead) bulletMethod = lead;
      for (const m of item.matchAll(/(?:\b(GET|POST)\s+)?(\/(?:qtservlet|scmapi)\/[\w/]*\w)/g)) {
        if (m[1]) bulletMethod = m[1];
        out.push(`${bulletMethod} ${m[2]}`);
      }
      for (const m of item.matchAll(/(?<![\w/])pwa\w+/g)) {
        out.push(`${bulletMethod} ${prefix}/${m[0]}`);
      }
    }
  }
  return out;
}

/** "METHOD path" of every contract endpoint, with its "group.name". */
function contractCalls(): Map<string, string> {
  const calls = new Map<string, string>();
  for (const [group, eps] of Object.entries(contract)) {
    for (const [name, ep] of Object.entries(eps as Record<string, Endpoint>)) {
      const key = `${ep.method} ${ep.path}`;
      assert.ok(!calls.has(key), `${key} is in the contract twice`);
      calls.set(key, `${group}.${name}`);
    }
  }
  return calls;
}

async function clientFiles(dir = new URL("client/", ROOT)): Promise<URL[]> {
  const files: URL[] = [];
  for await (const e of Deno.readDir(dir)) {
    const u = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) {
      // The contract defines the calls; using one means calling it from elsewhere.
      if (u.pathname.endsWith("/client/shared/contract/")) continue;
      files.push(...await clientFiles(u));
    } else if (/\.tsx?$/.test(e.name)) files.push(u);
  }
  return files;
}

/**
 * "group.name" of every contract endpoint a client module refers to: through the group's
 * import (`import { approvals as api } from ".../shared/contract/approvals.ts"` → `api.list`)
 * or through `contract.<group>.<name>`.
 */
async function clientUses(): Promise<Map<string, string[]>> {
  const used = new Map<string, string[]>();
  const note = (call: string, file: string) => used.set(call, [...used.get(call) ?? [], file]);
  for (const f of await clientFiles()) {
    const src = await Deno.readTextFile(f);
    const rel = f.pathname.slice(ROOT.pathname.length);
    const aliases = new Map<string, string>();
    for (
      const m of src.matchAll(/import\s*\{([^}]*)\}\s*from\s*"[^"]*shared\/contract\/\w+\.ts"/g)
    ) {
      for (const spec of m[1].split(",")) {
        const [name, alias] = spec.trim().split(/\s+as\s+/);
        if (name in contract) aliases.set(alias ?? name, name);
        if (name === "contract") {
          for (const g of Object.keys(contract)) aliases.set(`${alias ?? name}.${g}`, g);
        }
      }
    }
    // The first load's session calls: the same endpoints, their schemas fetched on demand.
    for (const m of src.matchAll(/import\s*\{([^}]*)\}\s*from\s*"[^"]*api\/session_calls\.ts"/g)) {
      for (const spec of m[1].split(",")) {
        const [name, alias] = spec.trim().split(/\s+as\s+/);
        if (name === "sessionCalls") aliases.set(alias ?? name, "session");
      }
    }
    for (const [alias, group] of aliases) {
      const eps = contract[group as keyof typeof contract] as Record<string, Endpoint>;
      const re = new RegExp(`(?<![\\w.])${alias.replace(".", "\\.")}\\.(\\w+)\\b`, "g");
      for (const m of src.matchAll(re)) if (m[1] in eps) note(`${group}.${m[1]}`, rel);
    }
  }
  return used;
}

Deno.test("[paths] the embedded §7 list is what the spec says (when the spec is at hand)", async () => {
  let spec: string;
  try {
    spec = await Deno.readTextFile(SPEC);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return; // CI's clean clone: the embedded list stands
    throw e;
  }
  assert.deepEqual(specCalls(spec), SPEC_CALLS);
});

Deno.test("[paths] every §7 call is in the contract at exactly §7's method and path", () => {
  const calls = contractCalls();
  const missing: string[] = [];
  for (const call of SPEC_CALLS) {
    if (call in NOT_JSON) continue;
    const known = KNOWN_MISMATCHES[call];
    if (known) {
      assert.ok(!calls.has(call), `${call} is now in the contract: take it off KNOWN_MISMATCHES`);
      assert.ok(calls.has(known.contract), `${call}: the contract no longer has ${known.contract}`);
      continue;
    }
    if (!calls.has(call)) {
      const name = call.slice(call.lastIndexOf("/") + 1);
      const near = [...calls].filter(([k]) => k.endsWith(`/${name}`)).map(([k, v]) => `${v}: ${k}`);
      missing.push(`${call}${near.length ? ` (contract has ${near.join(", ")})` : ""}`);
    }
  }
  assert.deepEqual(missing, [], `§7 calls missing from the contract:\n${missing.join("\n")}`);
});

Deno.test("[paths] §7 calls that are not JSON endpoints are accounted for, at §7's path", async () => {
  const notInSpec = Object.keys(NOT_JSON).filter((k) => !SPEC_CALLS.includes(k));
  assert.deepEqual(notInSpec, [], "NOT_JSON names calls §7 does not have");
  const calls = contractCalls();
  for (const [call, v] of Object.entries(NOT_JSON)) {
    assert.ok(!calls.has(call), `${call} is a contract endpoint: take it off NOT_JSON`);
    const path = call.slice(call.indexOf(" ") + 1);
    if (path.startsWith("/")) assert.equal(v.path, path, `${call}: shared constant differs`);
    else assert.equal(v.path, null, call);
    assert.ok(v.where.trim(), call);
    if (Array.isArray(v.client)) {
      const [file, text] = v.client;
      const src = await Deno.readTextFile(new URL(file, ROOT));
      assert.ok(src.includes(text), `${call}: ${file} no longer has "${text}"`);
    } else {
      assert.ok(v.client.none.trim(), call);
      // "Not called" is read from the client's code: no module names the path or its constant.
      const constant = Object.entries(PATHS).find(([, p]) => p === v.path)?.[0];
      for (const f of await clientFiles()) {
        const src = await Deno.readTextFile(f);
        const named = (v.path && src.includes(`"${v.path}`)) ||
          (constant && new RegExp(`\\b${constant}\\b`).test(src));
        assert.ok(!named, `${call} is called by ${f.pathname}: say where instead of "none"`);
      }
    }
  }
});

Deno.test("[paths] every contract endpoint is called by some client module", async () => {
  const used = await clientUses();
  const all = [...contractCalls()];
  const unused = all.filter(([, name]) => !used.has(name) && !(name in NOT_CALLED))
    .map(([call, name]) => `${name} (${call})`);
  assert.deepEqual(unused, [], `contract endpoints no client module calls:\n${unused.join("\n")}`);
  const names = new Set(all.map(([, name]) => name));
  for (const [name, why] of Object.entries(NOT_CALLED)) {
    assert.ok(names.has(name), `NOT_CALLED: ${name} is not in the contract`);
    assert.ok(!used.has(name), `${name} is called by ${used.get(name)}: take it off NOT_CALLED`);
    assert.ok(why.trim(), name);
  }
});

Deno.test("[paths] pwaoverviewteams is under /scmapi/expense/ as §7 has it", () => {
  assert.equal(contract.approvals.overviewTeams.path, "/scmapi/expense/pwaoverviewteams");
  assert.ok(SPEC_CALLS.includes("GET /scmapi/expense/pwaoverviewteams"));
});
