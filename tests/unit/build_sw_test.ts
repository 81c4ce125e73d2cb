import assert from "node:assert/strict";
import { inflateSync } from "node:zlib";
import { drawIcon, encodePng, ICONS, parseIconSvg, releaseFor } from "../../build.ts";
import { isSkipWaiting, listenForSkipWaiting } from "../../client/sw/messages.ts";
import { isPassThrough, isShellNavigation } from "../../client/sw/precache.ts";
import { pngSize } from "./build_helpers.ts";

Deno.test("[sw] API and development pages (every /_ path) are never intercepted; other navigations get the shell", () => {
  for (
    const path of [
      "/bonita/API/cards/1",
      "/bonita",
      "/bonita?x=1",
      "/_outbox",
      "/_outbox/3",
      "/_issuer",
      "/_issuer?result=a1",
      "/_issuer/purchase",
      "/_future",
    ]
  ) {
    assert.ok(isPassThrough(path), path);
    assert.ok(!isShellNavigation(path), path);
  }
  for (
    const path of ["/", "/?source=pwa", "/requests", "/bonitafoo", "/outbox"]
  ) {
    assert.ok(!isPassThrough(path), path);
    assert.ok(isShellNavigation(path), path);
  }
  for (const path of ["/robots.txt", "/icons/missing.png", "/sw.js?v=2"]) {
    assert.ok(!isShellNavigation(path), `${path}: a file, not the shell`);
  }
});

Deno.test("[sw] only a SKIP_WAITING message makes the waiting worker take over", () => {
  let listener: ((event: { data: unknown }) => void) | undefined;
  let skips = 0;
  listenForSkipWaiting({
    addEventListener(type, l) {
      assert.equal(type, "message");
      listener = l;
    },
    skipWaiting() {
      skips++;
      return Promise.resolve();
    },
  });
  assert.ok(listener, "no message listener registered");
  for (
    const data of [null, "SKIP_WAITING", { type: "skip_waiting" }, {
      kind: "SKIP_WAITING",
    }]
  ) {
    listener({ data });
  }
  assert.equal(skips, 0, "skipWaiting without the user's consent");
  listener({ data: { type: "SKIP_WAITING" } });
  assert.equal(skips, 1);
  assert.ok(isSkipWaiting({ type: "SKIP_WAITING" }));
});

Deno.test("[build] version label: 2.<yy>.<MMdd> released dd-MM-yyyy (spec §1's example)", () => {
  assert.deepEqual(releaseFor(new Date("2025-02-11T23:30:00Z")), {
    version: "2.25.0211",
    released: "11-02-2025",
  });
  assert.deepEqual(releaseFor(new Date("2026-12-01T00:00:00Z"), "3.0.1"), {
    version: "3.0.1",
    released: "01-12-2026",
  });
});

Deno.test("[build] icons: icon.svg's rects drawn into a PNG that decodes to the pixels", async () => {
  const logo = parseIconSvg(await Deno.readTextFile("static/icons/icon.svg"));
  assert.ok(logo.rects.length >= 2);
  assert.throws(
    () => parseIconSvg('<svg viewBox="0 0 8 8"><path d="M0 0h8"/></svg>'),
    /<path> is not drawn/,
  );
  const any = drawIcon(logo, 48, "any");
  const maskable = drawIcon(logo, 48, "maskable");
  // "any" keeps the SVG's rounded transparent corners; maskable fills to the edges.
  assert.equal(any[3], 0, "corner of an any icon is transparent");
  assert.deepEqual([...maskable.subarray(0, 4)], [...logo.rects[0].fill, 255]);
  const png = encodePng(48, 48, any);
  assert.deepEqual(pngSize(png), [48, 48]);
  // IDAT (one chunk) inflates to filter byte 0 + the row's RGBA, row after row.
  const idat = png.indexOf(0x49, 33); // 'I' of IDAT after IHDR (8 + 25 bytes)
  const len = new DataView(png.buffer).getUint32(idat - 4);
  const raw = new Uint8Array(inflateSync(png.subarray(idat + 4, idat + 4 + len)));
  assert.equal(raw.length, 48 * (1 + 48 * 4));
  assert.deepEqual([...raw.subarray(1, 1 + 48 * 4)], [...any.subarray(0, 48 * 4)]);
  assert.deepEqual(ICONS.map((i) => i.size), [192, 512, 192, 512, 180]);
});
