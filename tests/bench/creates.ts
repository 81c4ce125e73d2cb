/**
 * Bench (spec §7 pwaexpenserequestcreate): expense requests created per second by 50 concurrent
 * callers, and how many of them failed (must be 0: a refused create loses what someone typed).
 * In-process (`app.request`, no sockets) on an in-memory app with the demo organisation; employee@
 * and manager@ create TRAVEL requests through pwaexpenserequestcreate.
 */
import { DEMO, type TestApi, testApp } from "../helpers.ts";

type Line = (name: string, value: string, budget?: string) => void;

export const CALLERS = 50;
/** Creates per caller per round: each caller sends its next one when the last is answered. */
export const EACH = 10;
const ROUNDS = 5;
const PATH = "/bonita/scmapi/expense/pwaexpenserequestcreate";
const TRAVEL = {
  typeOid: "type-travel",
  amount: 120,
  purpose: "Train to Lyon",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One round: CALLERS loops of EACH creates; creates per second, failures and the ids. */
export async function round(api: TestApi, tokens: string[]) {
  const ids: string[] = [];
  const failures: string[] = [];
  const caller = async (c: number) => {
    const headers = {
      authorization: `Bearer ${tokens[c % tokens.length]}`,
      "content-type": "application/json",
    };
    for (let i = 0; i < EACH; i++) {
      const res = await api.app.request(PATH, {
        method: "POST",
        headers,
        body: JSON.stringify({ expenseRequest: { ...TRAVEL, purpose: `Trip ${c}.${i}` } }),
      });
      const text = await res.text();
      if (res.status === 200) ids.push(JSON.parse(text).expenseRequest.id);
      else failures.push(`${res.status} ${text}`);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CALLERS }, (_, c) => caller(c)));
  const ms = performance.now() - t0;
  return { perS: (CALLERS * EACH) / (ms / 1000), failures, ids };
}

export async function benchCreates(line: Line) {
  // As deployed: answers are not re-checked against the contract (a test-time guard).
  const api = await testApp({ CHECK_RESPONSES: "false" });
  try {
    const tokens = [
      (await api.activate(DEMO.employee)).token,
      (await api.activate(DEMO.manager)).token,
    ];
    await round(api, tokens); // warm-up
    const rates: number[] = [];
    const failures: string[] = [];
    const ids: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const x = await round(api, tokens);
      rates.push(x.perS);
      failures.push(...x.failures);
      ids.push(...x.ids);
    }
    const wellFormed = ids.every((id) => /^R\d{6,}$/.test(id));
    const unique = new Set(ids).size === ids.length;
    line(
      `creates, ${CALLERS} concurrent callers, median of ${ROUNDS}`,
      `${median(rates).toFixed(0)} /s`,
      `(${rates.map((r) => r.toFixed(0)).join(", ")}; ${CALLERS * EACH} creates a round)`,
    );
    line(
      `  failed creates (of ${CALLERS * EACH * ROUNDS})`,
      String(failures.length),
      `must be 0 ${failures.length === 0 ? "(ok)" : `(FAILED: ${failures[0]})`}`,
    );
    line(
      "  ids unique and 'R' + 6 digits",
      unique && wellFormed ? "yes" : "NO",
      `${ids.length} ids, ${ids.sort()[0]} … ${ids.at(-1)}`,
    );
  } finally {
    api.close();
  }
}
