import { DeliveryError, type Outgoing, type Transport } from "./types.ts";

export interface HttpSmsOptions {
  /** The provider's (or a bridge's) endpoint: POST, JSON body {to, text, id}. */
  url: string;
  /** Header that carries the credential, e.g. `authorization` or `x-api-key`. */
  authHeader: string;
  /** Its value, sent as is (e.g. `Bearer abc…`); none when unset. */
  token?: string;
  timeoutMs: number;
}

/**
 * SMS through a provider's REST endpoint. The request:
 *
 *   POST SMS_HTTP_URL
 *   content-type: application/json
 *   idempotency-key: <message id>
 *   <SMS_HTTP_AUTH_HEADER>: <SMS_HTTP_TOKEN>
 *   {"to": "+33612345678", "text": "…", "id": "<message id>"}
 *
 * 2xx = delivered; 429, 5xx, timeouts and network errors = retried with backoff (Retry-After
 * is honoured); any other 4xx = failed at once (the request itself is wrong). `id` is stable
 * across retries, so a provider (or bridge) can drop a repeat.
 */
export class HttpSmsTransport implements Transport {
  readonly channel = "sms" as const;
  readonly kind = "http" as const;

  constructor(private opts: HttpSmsOptions) {}

  describe(): string {
    return `http POST ${new URL(this.opts.url).origin}${new URL(this.opts.url).pathname}`;
  }

  async send(msg: Outgoing): Promise<void> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "idempotency-key": msg.id,
    };
    if (this.opts.token) headers[this.opts.authHeader] = this.opts.token;
    let res: Response;
    try {
      res = await fetch(this.opts.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ to: msg.to, text: msg.text, id: msg.id }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        redirect: "manual",
      });
    } catch (err) {
      const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      throw new DeliveryError(`SMS endpoint unreachable (${why})`.slice(0, 500), false);
    }
    const detail = (await res.text().catch(() => "")).slice(0, 200);
    if (res.ok) return;
    const what = `SMS endpoint answered ${res.status}${detail ? `: ${detail}` : ""}`;
    if (res.status === 429 || res.status >= 500) {
      throw new DeliveryError(what, false, retryAfterMs(res.headers.get("retry-after")));
    }
    throw new DeliveryError(what, true);
  }

  close(): void {}
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(v: string | null): number | undefined {
  if (!v) return undefined;
  const s = Number(v);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const t = Date.parse(v);
  return Number.isFinite(t) ? Math.max(0, t - Date.now()) : undefined;
}

/** No SMS transport configured: an SMS fails at once, visibly, instead of waiting forever. */
export class NoSmsTransport implements Transport {
  readonly channel = "sms" as const;
  readonly kind = "none" as const;
  describe(): string {
    return "none (set SMS_TRANSPORT)";
  }
  send(): Promise<void> {
    return Promise.reject(new DeliveryError("no SMS transport is configured", true));
  }
  close(): void {}
}
