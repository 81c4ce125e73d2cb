/**
 * Structured logs (operating it, docs/deploying.md): one JSON object a line on stdout,
 * `{"t", "level", "msg", …fields}`, filtered by LOG_LEVEL. Callers pass only fields that carry
 * no secret or personal data (no token, PAN, CVC, activation code, PIN or email): the logger
 * cannot tell, so it is given ids, paths without query, statuses and durations only.
 */

export const LOG_LEVELS = ["debug", "info", "warn", "error", "off"] as const;
export type LogLevel = typeof LOG_LEVELS[number];
type Level = Exclude<LogLevel, "off">;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, off: 99 };

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  readonly level: LogLevel;
  /** True when a line at `level` is written (skip building costly fields otherwise). */
  enabled(level: Level): boolean;
  log(level: Level, msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A plain text line from an older part of the server (`(line) => void` callbacks). */
  line(level: Level): (text: string) => void;
}

/** A logger writing JSON lines through `write` (console.log by default; tests capture it). */
export function createLogger(
  level: LogLevel = "info",
  write: (line: string) => void = (line) => console.log(line),
): Logger {
  const enabled = (l: Level) => RANK[l] >= RANK[level];
  const log = (l: Level, msg: string, fields: LogFields = {}) => {
    if (!enabled(l)) return;
    write(JSON.stringify({ t: new Date().toISOString(), level: l, msg, ...fields }));
  };
  return {
    level,
    enabled,
    log,
    debug: (m, f) => log("debug", m, f),
    info: (m, f) => log("info", m, f),
    warn: (m, f) => log("warn", m, f),
    error: (m, f) => log("error", m, f),
    line: (l) => (text) => log(l, text),
  };
}

/** An error's name and message only (never its cause chain or a request it may hold). */
export function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
