import type { Logger } from './domain/ports.ts';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

/** Field names whose values never reach a log line. */
const SECRET_KEY = /secret|password|passwd|token|api[-_]?key|authorization|signature|masterkey/i;

export function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (SECRET_KEY.test(k)) out[k] = '[redacted]';
    else if (typeof v === 'bigint') out[k] = v.toString();
    else if (v instanceof Error) out[k] = v.message;
    else out[k] = v;
  }
  return out;
}

/** Structured logs, one JSON object per line (journald keeps them as they are). */
export function createLogger(opts: { level?: LogLevel; write?: (line: string) => void; now?: () => number; base?: Record<string, unknown> } = {}): Logger {
  const min = LEVELS[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const now = opts.now ?? Date.now;
  const base = opts.base ?? {};
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < min) return;
    write(JSON.stringify({ time: new Date(now()).toISOString(), level, msg, ...redact({ ...base, ...fields }) }));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...opts, base: { ...base, ...fields } }),
  };
}

/** A logger that does nothing at all (tests, benchmarks): not even formatting. */
export const silentLogger = (): Logger => {
  const noop = () => {};
  const log: Logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => log };
  return log;
};
