/**
 * A 503 from the server (its store is unreachable, issue 32 §5) on the client: every call —
 * JSON calls, uploads, downloads — throws UnavailableError, a NetworkError, so the app treats
 * it as being offline: a new write goes into the offline queue (the actions queue on
 * NetworkError), a queued one stays and is sent again later, a PIN unlocks offline instead of
 * counting as wrong. Before, a 503 was an ApiError: a comment or a receipt written then was
 * refused with a banner instead of queued, and a correct PIN counted as a failed unlock.
 */
import assert from "node:assert/strict";
import {
  ApiError,
  call,
  credentials,
  NetworkError,
  unavailable,
  UnavailableError,
} from "../../client/api/http.ts";
import { uploadFile } from "../../client/api/files.ts";
import { transactions } from "../../client/shared/contract/transactions.ts";
import type { QueuedWrite } from "../../client/offline/queue.ts";
import { drain, outcomeOf } from "../../client/actions/replay.ts";

const down = () =>
  Response.json({ error: "store_unavailable", message: "Try again in a moment." }, {
    status: 503,
    headers: { "retry-after": "2" },
  });

async function withFetch<T>(answer: () => Response, fn: () => Promise<T>): Promise<T> {
  const real = globalThis.fetch;
  globalThis.fetch = (() => Promise.resolve(answer())) as typeof fetch;
  try {
    return await fn();
  } finally {
    globalThis.fetch = real;
  }
}

Deno.test("[unavailable] a 503 is an UnavailableError (a NetworkError) with its Retry-After", async () => {
  credentials.bearer = "t0ken";
  const err = await withFetch(
    down,
    () =>
      call(transactions.addComment, { body: { oid: "tx1", comment: "Taxi" } }).then(
        () => null,
        (e) => e,
      ),
  );
  assert.ok(err instanceof UnavailableError, String(err));
  assert.ok(err instanceof NetworkError, "handled where the network is away");
  assert.ok(!(err instanceof ApiError), "not a refusal");
  assert.equal(err.retryAfterS, 2);
  // Retry-After as an HTTP date, absent, or not a 503 at all.
  const inFive = new Date(Date.now() + 5_000).toUTCString();
  const r = unavailable(503, inFive)!.retryAfterS!;
  assert.ok(r >= 4 && r <= 6, String(r));
  assert.equal(unavailable(503, null)!.retryAfterS, null);
  assert.equal(unavailable(500, "2"), null);
  // Other errors are what they were: a 500 is still an ApiError.
  const other = await withFetch(
    () => Response.json({ error: "internal", message: "Something went wrong" }, { status: 500 }),
    () => call(transactions.addComment, { body: { oid: "tx1", comment: "Taxi" } }).catch((e) => e),
  );
  assert.ok(other instanceof ApiError && !(other instanceof NetworkError));
});

Deno.test("[unavailable] an upload answered 503 is an UnavailableError too", async () => {
  // Deno has no XMLHttpRequest: the least of one that answers 503.
  class Xhr {
    status = 0;
    responseText = "";
    upload = {};
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    ontimeout: (() => void) | null = null;
    open() {}
    setRequestHeader() {}
    getResponseHeader(name: string) {
      return name.toLowerCase() === "retry-after" ? "3" : null;
    }
    send() {
      this.status = 503;
      this.responseText = JSON.stringify({ error: "store_unavailable", message: "Later" });
      queueMicrotask(() => this.onload?.());
    }
  }
  const g = globalThis as unknown as { XMLHttpRequest?: unknown };
  const real = g.XMLHttpRequest;
  g.XMLHttpRequest = Xhr;
  try {
    const err = await uploadFile("/scmapi/expense/pwaauploaddocument", {
      file: new Blob([new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d])]),
      name: "r.pdf",
      fields: { record: "tx1" },
    }).catch((e) => e);
    assert.ok(err instanceof UnavailableError, String(err));
    assert.equal(err.retryAfterS, 3);
  } finally {
    g.XMLHttpRequest = real;
  }
});

Deno.test("[unavailable] the offline queue keeps a write answered 503 and sends it later", async () => {
  assert.equal(outcomeOf(new UnavailableError(2)), "retry");
  const w: QueuedWrite = {
    seq: 1,
    key: "k-0001-outage",
    kind: "comment",
    target: "tx1",
    label: "Taxi",
    call: { ep: "transaction.addComment", body: { oid: "tx1", comment: "Taxi" } },
    state: "pending",
    error: null,
    attempts: 0,
    createdAt: 0,
  };
  const seen: string[] = [];
  const hooks = {
    sending: () => {},
    sent: () => Promise.resolve(void seen.push("sent")),
    failed: () => Promise.resolve(void seen.push("failed")),
    retry: () => Promise.resolve(void seen.push("retry")),
  };
  credentials.bearer = "t0ken";
  const send = () => call(transactions.addComment, { body: { oid: "tx1", comment: "Taxi" } });
  assert.equal(await withFetch(down, () => drain([w], send, hooks)), "retry");
  assert.deepEqual(seen, ["retry"], "kept, not failed");
});
