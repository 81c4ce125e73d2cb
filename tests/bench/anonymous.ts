/**
 * Anonymous callers cannot grow the server (engineering.md §6): 60 upload connections at once to a
 * main.ts behind its connection guard, each with a made-up device-id and Idempotency-Key, no
 * bearer, an ~11 MB body. Printed: the server's RSS growth (after, and the peak meanwhile) and
 * the idempotency records left in its KV. A few seconds.
 */
import { measureAnonymousUploads } from "../server/anonymous_load.ts";

type Line = (name: string, value: string, budget?: string) => void;

export async function benchAnonymous(line: Line): Promise<void> {
  const f = await measureAnonymousUploads(60);
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  line(
    "60 anonymous 11 MB uploads: server RSS growth",
    mb(f.rssGrowth),
    `budget < 50 MB ${f.rssGrowth < 50e6 ? "(ok)" : "(OVER)"} (peak ${mb(f.rssPeakGrowth)}, ` +
      `${f.ms.toFixed(0)} ms, ${mb(f.sent)} sent before the close)`,
  );
  line(
    "60 anonymous 11 MB uploads: idempotency records in KV",
    `${f.idemRecords}`,
    `budget 0 ${f.idemRecords === 0 ? "(ok)" : "(OVER)"}`,
  );
}
