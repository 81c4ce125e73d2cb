import { useEffect, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { secondsLeft } from "../lib/cards.ts";

/**
 * A visible countdown to `until` (Date.now() ms), ticking each second: how long a revealed
 * secret stays on screen. role=timer is not announced at every tick.
 */
export function Countdown(props: { until: number; text: (seconds: number) => string }) {
  useSignals();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [props.until]);
  return (
    <p className="countdown" role="timer">
      {props.text(secondsLeft(props.until, now))}
    </p>
  );
}
