import { type RefObject, useEffect, useRef, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import {
  afterMove,
  afterRelease,
  pullDistance,
  type PullState,
  REFRESH_HEIGHT,
  RESET_MS,
  SLIDE_BACK_MS,
} from "../lib/pull_refresh.ts";
import { Icon } from "./Icon.tsx";

/**
 * spec §2 pull-to-refresh on the header: a finger that touches `target` while the page is
 * scrolled to the top and drags down pulls an indicator at half its speed; at the refresh
 * height `onRefresh` runs (the header's Refresh), then the indicator resets after 1.5 s.
 *
 * Every listener is passive (scrolling never waits for us): the page cannot scroll up
 * from its top, and `overscroll-behavior-y: contain` keeps the browser's own pull-to-reload
 * out. The indicator moves by a transform set in an animation frame, without a render;
 * React renders only when the state changes.
 */
export function PullToRefresh(props: {
  target: RefObject<HTMLElement | null>;
  onRefresh: () => Promise<void>;
  /** When true a pull shows but does not refresh (a refresh is already running). */
  busy?: boolean;
}) {
  useSignals();
  const [state, setState] = useState<PullState>("idle");
  const box = useRef<HTMLDivElement>(null);
  const pill = useRef<HTMLDivElement>(null);
  const live = useRef({ state: "idle" as PullState, startY: -1, distance: 0, frame: 0 });
  const refresh = useRef(props.onRefresh);
  refresh.current = props.onRefresh;
  const busy = useRef(props.busy);
  busy.current = props.busy;

  useEffect(() => {
    const el = props.target.current;
    if (!el) return;
    const s = live.current;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const paint = () => {
      s.frame = 0;
      if (pill.current) pill.current.style.transform = `translateY(${s.distance}px)`;
    };
    const move = (distance: number) => {
      s.distance = distance;
      if (!s.frame) s.frame = requestAnimationFrame(paint);
    };
    const go = (next: PullState) => {
      if (next === s.state) return;
      s.state = next;
      // At once, so the CSS that depends on it (the slide-back transition) is right for
      // this very frame; the render that follows writes the same value.
      if (box.current) box.current.dataset.state = next;
      setState(next);
    };
    const atTop = () => (document.scrollingElement?.scrollTop ?? globalThis.scrollY) <= 0;

    const start = (e: TouchEvent) => {
      s.startY = s.state === "idle" && e.touches.length === 1 && atTop()
        ? e.touches[0].clientY
        : -1;
    };
    const drag = (e: TouchEvent) => {
      if (s.startY < 0 || e.touches.length !== 1) return;
      const dy = e.touches[0].clientY - s.startY;
      const next = afterMove(s.state, dy);
      if (next === "refreshing") {
        s.startY = -1;
        move(REFRESH_HEIGHT);
        go("refreshing");
        const started = Date.now();
        const finish = () => {
          timers.push(setTimeout(() => {
            go("reset");
            move(0);
            timers.push(setTimeout(() => go("idle"), SLIDE_BACK_MS));
          }, Math.max(0, RESET_MS - (Date.now() - started))));
        };
        (busy.current ? Promise.resolve() : refresh.current()).then(finish, finish);
        return;
      }
      move(next === "pulling" ? pullDistance(dy) : 0);
      go(next);
    };
    const end = () => {
      if (s.startY < 0) return;
      s.startY = -1;
      const next = afterRelease(s.state);
      if (next === "idle") move(0);
      go(next);
    };
    const passive = { passive: true } as const;
    el.addEventListener("touchstart", start, passive);
    el.addEventListener("touchmove", drag, passive);
    el.addEventListener("touchend", end, passive);
    el.addEventListener("touchcancel", end, passive);
    return () => {
      el.removeEventListener("touchstart", start);
      el.removeEventListener("touchmove", drag);
      el.removeEventListener("touchend", end);
      el.removeEventListener("touchcancel", end);
      for (const id of timers) clearTimeout(id);
      if (s.frame) cancelAnimationFrame(s.frame);
    };
  }, [props.target]);

  return (
    <div className="ptr" data-state={state} ref={box}>
      <div className="ptr-pill" ref={pill} role="status" aria-live="polite">
        {state === "idle" ? "" : (
          <>
            <span className="ptr-icon" aria-hidden="true">
              <Icon name="refresh" size={18} />
            </span>
            {state === "pulling" ? t("main.pullToRefresh") : t("main.refreshing")}
          </>
        )}
      </div>
    </div>
  );
}
