/**
 * The client's side of web push without a browser (spec §1 push notifications): the service
 * worker's payload checks and its push / notificationclick decisions against a fake worker scope,
 * and the registration rules of spec §9 (refresh after 7 days, 10 s timeout).
 */
import assert from "node:assert/strict";
import {
  handleClick,
  handlePush,
  isPushPageMessage,
  OPEN_LINK,
  parsePayload,
  PUSH_MESSAGE,
  type PushScope,
  safeUrl,
} from "../../client/sw/push.ts";
import {
  PUSH_REFRESH_MS,
  PushTimeoutError,
  registeredAt,
  registrationStale,
  withTimeout,
} from "../../client/actions/push.ts";

const ORIGIN = "https://qcard.example";

Deno.test("[push client] safeUrl keeps links of our origin and sends anything else home", () => {
  assert.equal(safeUrl("/?open=transaction:t1", ORIGIN), `${ORIGIN}/?open=transaction:t1`);
  assert.equal(safeUrl(`${ORIGIN}/?open=request:r1`, ORIGIN), `${ORIGIN}/?open=request:r1`);
  assert.equal(safeUrl("https://evil.example/?open=request:r1", ORIGIN), `${ORIGIN}/`);
  assert.equal(safeUrl("//evil.example/", ORIGIN), `${ORIGIN}/`);
  assert.equal(safeUrl("javascript:alert(1)", ORIGIN), `${ORIGIN}/`);
  assert.equal(safeUrl(42, ORIGIN), `${ORIGIN}/`);
});

Deno.test("[push client] parsePayload reads {title, body, url, tag} and survives junk", () => {
  assert.deepEqual(
    parsePayload(
      JSON.stringify({ title: " Paid ", body: "42 €", url: "/?open=transaction:t1", tag: "t" }),
      ORIGIN,
    ),
    { title: "Paid", body: "42 €", url: `${ORIGIN}/?open=transaction:t1`, tag: "t" },
  );
  assert.deepEqual(parsePayload("plain text", ORIGIN), {
    title: "QCard",
    body: "plain text",
    url: `${ORIGIN}/`,
  });
  assert.deepEqual(parsePayload(null, ORIGIN), { title: "QCard", body: "", url: `${ORIGIN}/` });
  assert.deepEqual(parsePayload(JSON.stringify({ title: 3, body: ["x"] }), ORIGIN), {
    title: "QCard",
    body: "",
    url: `${ORIGIN}/`,
  });
});

Deno.test("[push client] isPushPageMessage accepts only the worker's two messages", () => {
  assert.ok(isPushPageMessage({ type: OPEN_LINK, url: "/" }));
  assert.ok(isPushPageMessage({ type: PUSH_MESSAGE, title: "a", body: "", url: "/" }));
  assert.ok(!isPushPageMessage({ type: PUSH_MESSAGE, title: "a", url: "/" }));
  assert.ok(!isPushPageMessage({ type: "SKIP_WAITING" }));
  assert.ok(!isPushPageMessage(null));
  assert.ok(!isPushPageMessage("qc-open"));
});

interface FakeWindow {
  url: string;
  focused: boolean;
  visibilityState: string;
  posted: unknown[];
  focusCalls: number;
  postMessage(m: unknown): void;
  focus(): Promise<unknown>;
}

function win(url: string, state: Partial<Pick<FakeWindow, "focused" | "visibilityState">>) {
  const w: FakeWindow = {
    url,
    focused: state.focused ?? false,
    visibilityState: state.visibilityState ?? "hidden",
    posted: [],
    focusCalls: 0,
    postMessage: (m) => void w.posted.push(m),
    focus: () => {
      w.focusCalls++;
      return Promise.reject(new Error("Not allowed to focus a window."));
    },
  };
  return w;
}

function scope(windows: FakeWindow[]) {
  const shown: { title: string; options: NotificationOptions }[] = [];
  const opened: string[] = [];
  const s: PushScope = {
    location: { origin: ORIGIN },
    clients: {
      matchAll: () => Promise.resolve(windows),
      openWindow: (url) => {
        opened.push(url);
        return Promise.resolve(null);
      },
    },
    registration: {
      showNotification: (title, options) => {
        shown.push({ title, options });
        return Promise.resolve();
      },
    },
    addEventListener: () => {},
  };
  return { s, shown, opened };
}

const PAYLOAD = JSON.stringify({
  title: "Purchase authorised",
  body: "42.50 € at Boulangerie Paul",
  url: "/?open=transaction:t1",
  tag: "transaction:t1",
});

Deno.test("[push client] a push with the app on screen goes to the app, not the system", async () => {
  const app = win(`${ORIGIN}/`, { visibilityState: "visible" });
  const outbox = win(`${ORIGIN}/_outbox`, { visibilityState: "visible" });
  const { s, shown } = scope([app, outbox]);
  await handlePush(s, PAYLOAD);
  assert.deepEqual(shown, []);
  assert.deepEqual(app.posted, [{
    type: PUSH_MESSAGE,
    title: "Purchase authorised",
    body: "42.50 € at Boulangerie Paul",
    url: `${ORIGIN}/?open=transaction:t1`,
    tag: "transaction:t1",
  }]);
  assert.deepEqual(outbox.posted, [], "another page of the origin is not the app");
});

Deno.test("[push client] a push with no app on screen shows a notification", async () => {
  const hidden = win(`${ORIGIN}/`, { visibilityState: "hidden" });
  const other = win(`${ORIGIN}/_issuer`, { visibilityState: "visible", focused: true });
  const { s, shown } = scope([hidden, other]);
  await handlePush(s, PAYLOAD);
  assert.equal(shown.length, 1);
  assert.equal(shown[0].title, "Purchase authorised");
  assert.equal(shown[0].options.body, "42.50 € at Boulangerie Paul");
  assert.equal(shown[0].options.tag, "transaction:t1");
  assert.deepEqual(shown[0].options.data, { url: `${ORIGIN}/?open=transaction:t1` });
  assert.ok(shown[0].options.icon && shown[0].options.badge);
  assert.deepEqual(hidden.posted, []);
});

Deno.test("[push client] a purchase's notification shows its 'Add receipt' button; a button or the body opens the capture link", async () => {
  const url = "/?open=transaction:t1:receipt";
  const payload = JSON.stringify({
    title: "Card payment authorised",
    body: "42.50 € at Boulangerie Paul",
    url,
    tag: "transaction:t1",
    actions: [{ action: "receipt", title: "Add receipt" }, { action: "BAD ONE", title: "x" }],
  });
  const { s, shown, opened } = scope([]);
  await handlePush(s, payload);
  assert.deepEqual(
    (shown[0].options as { actions?: unknown }).actions,
    [{ action: "receipt", title: "Add receipt" }],
  );
  assert.deepEqual(shown[0].options.data, { url: `${ORIGIN}${url}` });
  // Junk actions are dropped, not shown.
  assert.equal(
    parsePayload(JSON.stringify({ title: "a", actions: "x" }), ORIGIN).actions,
    undefined,
  );
  await handleClick(s, shown[0].options.data);
  assert.deepEqual(opened, [`${ORIGIN}${url}`]);
});

Deno.test("[push client] an approval's 'Approve' and 'Reject' each open their own link; the body opens the approval; the worker only opens", async () => {
  const payload = JSON.stringify({
    title: "Approval needed",
    body: "Anna asks for €300.00: Team offsite",
    url: "/?open=approval:a1",
    tag: "approval:a1",
    actions: [
      { action: "approve", title: "Approve", url: "/?open=approval:a1:approve" },
      { action: "reject", title: "Reject", url: "https://evil.example/?open=approval:a1:reject" },
    ],
  });
  const { s, shown, opened } = scope([]);
  await handlePush(s, payload);
  // The platform's buttons carry only their names and titles; the links stay in the data.
  assert.deepEqual((shown[0].options as { actions?: unknown }).actions, [
    { action: "approve", title: "Approve" },
    { action: "reject", title: "Reject" },
  ]);
  assert.deepEqual(shown[0].options.data, {
    url: `${ORIGIN}/?open=approval:a1`,
    // A link of another origin is not followed: the app's start page instead.
    links: { approve: `${ORIGIN}/?open=approval:a1:approve`, reject: `${ORIGIN}/` },
  });
  await handleClick(s, shown[0].options.data, "approve");
  await handleClick(s, shown[0].options.data, "");
  await handleClick(s, shown[0].options.data, "unknown");
  assert.deepEqual(opened, [
    `${ORIGIN}/?open=approval:a1:approve`,
    `${ORIGIN}/?open=approval:a1`,
    `${ORIGIN}/?open=approval:a1`,
  ]);
  // With the app open, the button's link is posted to it (which asks for the unlock first).
  const open = win(`${ORIGIN}/`, { visibilityState: "hidden" });
  const f = scope([open]);
  await handleClick(f.s, shown[0].options.data, "approve");
  assert.deepEqual(open.posted, [{ type: OPEN_LINK, url: `${ORIGIN}/?open=approval:a1:approve` }]);
  // On screen, the in-app banner gets the buttons with their links.
  const visible = win(`${ORIGIN}/`, { visibilityState: "visible" });
  await handlePush(scope([visible]).s, payload);
  const m = visible.posted[0] as { actions: unknown };
  assert.deepEqual(m.actions, [
    { action: "approve", title: "Approve", url: `${ORIGIN}/?open=approval:a1:approve` },
    { action: "reject", title: "Reject", url: `${ORIGIN}/` },
  ]);
});

Deno.test("[push client] a click posts the link to an open window, else opens one", async () => {
  const hidden = win(`${ORIGIN}/`, { visibilityState: "hidden" });
  const focused = win(`${ORIGIN}/`, { focused: true, visibilityState: "visible" });
  let f = scope([hidden, focused]);
  await handleClick(f.s, { url: "/?open=approval:a1" });
  assert.deepEqual(focused.posted, [{ type: OPEN_LINK, url: `${ORIGIN}/?open=approval:a1` }]);
  assert.equal(focused.focusCalls, 1, "focus is asked for; its refusal does not stop the open");
  assert.deepEqual(hidden.posted, []);
  assert.deepEqual(f.opened, []);

  f = scope([win(`${ORIGIN}/_outbox`, { focused: true })]);
  await handleClick(f.s, { url: "https://evil.example/" });
  assert.deepEqual(f.opened, [`${ORIGIN}/`]);
  f = scope([]);
  await handleClick(f.s, { url: "/?open=request:r1" });
  assert.deepEqual(f.opened, [`${ORIGIN}/?open=request:r1`]);
});

Deno.test("[push client] registration time in the cookie, refreshed after 7 days (spec §9)", () => {
  assert.equal(registeredAt(null), null);
  assert.equal(registeredAt(""), null);
  assert.equal(registeredAt("1700000000000"), 1700000000000);
  assert.equal(registeredAt("1"), 1, "an older version's flag reads as long ago");
  assert.equal(registeredAt("yes"), 0);
  const at = 1_700_000_000_000;
  assert.equal(registrationStale(null, at + PUSH_REFRESH_MS * 2), false);
  assert.equal(registrationStale(at, at + PUSH_REFRESH_MS - 1), false);
  assert.equal(registrationStale(at, at + PUSH_REFRESH_MS), true);
  assert.equal(registrationStale(1, at), true);
});

Deno.test("[push client] a hanging subscription gives up after the timeout (spec §9 10 s)", async () => {
  await assert.rejects(withTimeout(new Promise(() => {}), 20), PushTimeoutError);
  assert.equal(await withTimeout(Promise.resolve(7), 20), 7);
  await assert.rejects(withTimeout(Promise.reject(new Error("no")), 20), /no/);
});
