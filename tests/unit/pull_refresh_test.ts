import assert from "node:assert/strict";
import {
  afterMove,
  afterRelease,
  MAX_PULL,
  PULL_FACTOR,
  pullDistance,
  REFRESH_HEIGHT,
  RESET_MS,
} from "../../client/lib/pull_refresh.ts";
import { shortcutOf } from "../../client/actions/shortcuts.ts";

Deno.test("[pull] spec §9 constants: factor 0.5, reset 1500 ms", () => {
  assert.equal(PULL_FACTOR, 0.5);
  assert.equal(RESET_MS, 1500);
});

Deno.test("[pull] the indicator follows half the finger, never up, at most MAX_PULL", () => {
  assert.equal(pullDistance(40), 20);
  assert.equal(pullDistance(-30), 0);
  assert.equal(pullDistance(10_000), MAX_PULL);
});

Deno.test("[pull] idle → pulling → refreshing at the refresh height; a release short of it ends", () => {
  assert.equal(afterMove("idle", 10), "pulling");
  assert.equal(afterMove("pulling", REFRESH_HEIGHT * 2 - 2), "pulling");
  assert.equal(afterMove("pulling", REFRESH_HEIGHT * 2), "refreshing");
  assert.equal(afterMove("pulling", -5), "idle");
  assert.equal(afterRelease("pulling"), "idle");
  // A refresh under way runs on to its reset whatever the finger does.
  assert.equal(afterMove("refreshing", 0), "refreshing");
  assert.equal(afterMove("reset", 500), "reset");
  assert.equal(afterRelease("refreshing"), "refreshing");
});

Deno.test("[shortcuts] the manifest's two shortcuts, nothing else", () => {
  assert.equal(shortcutOf("?open=new-request"), "new-request");
  assert.equal(shortcutOf("?x=1&open=wallet"), "wallet");
  assert.equal(shortcutOf("?open=request:R1"), null);
  assert.equal(shortcutOf(""), null);
});
