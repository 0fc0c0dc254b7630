import { fstatSync, writeSync } from 'node:fs';
import pino, { type DestinationStream } from 'pino';
import type { Logger, RequestLogEntry } from './domain/ports.ts';
import { pipeDestination } from './log-pipe.ts';
import { stderr } from './stdio.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The root logger of a process: a Logger that can also be flushed (at exit, on a fatal error). */
export interface RootLogger extends Logger {
  /** Writes out whatever is buffered, synchronously. */
  flush(): void;
}

/** Field names whose values never reach a log line. */
const SECRET_KEY = /secret|password|passwd|token|api[-_]?key|authorization|signature|masterkey/i;

export function redact(fields: Record<string, unknown>, isSecret: (key: string) => boolean = (k) => SECRET_KEY.test(k)): Record<string, unknown> {
  // Most entries (every request line) need no change: hand them on without a copy.
  let clean = true;
  for (const k in fields) {
    const v = fields[k];
    if (isSecret(k) || typeof v === 'bigint' || v instanceof Error) {
      clean = false;
      break;
    }
  }
  if (clean) return fields;
  const out: Record<string, unknown> = {};
  for (const k in fields) {
    const v = fields[k];
    if (isSecret(k)) out[k] = '[redacted]';
    else if (typeof v === 'bigint') out[k] = v.toString();
    else if (v instanceof Error) out[k] = v.message;
    else out[k] = v;
  }
  return out;
}

/** `redact` remembering each field name's verdict: names come from code, so they are few. */
function memoRedact(): (fields: Record<string, unknown>) => Record<string, unknown> {
  const verdicts = new Map<string, boolean>();
  const isSecret = (k: string): boolean => {
    let secret = verdicts.get(k);
    if (secret === undefined) {
      secret = SECRET_KEY.test(k);
      if (verdicts.size < 1000) verdicts.set(k, secret);
    }
    return secret;
  };
  return (fields) => redact(fields, isSecret);
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Receives each JSON line (without newline), synchronously; tests use it. Default: stderr. */
  write?: (line: string) => void;
  /** `pretty`: one short human-readable line per entry. Default: pretty when stderr is a terminal, else JSON lines. */
  format?: 'json' | 'pretty';
  now?: () => number;
  base?: Record<string, unknown>;
}

/**
 * Structured logs through pino: one JSON object per line (journald keeps them as they are),
 * written to stderr asynchronously so a request never waits on the log, and flushed at exit.
 * On a terminal the same entries print as compact lines instead.
 */
export function createLogger(opts: LoggerOptions = {}): RootLogger {
  const now = opts.now ?? Date.now;
  const format = opts.format ?? (!opts.write && process.stderr.isTTY ? 'pretty' : 'json');
  const time = isoTimestamp(now);
  let dest: DestinationStream & { flushSync?: () => void };
  if (opts.write) {
    const write = opts.write;
    dest = { write: (s: string) => write(s.endsWith('\n') ? s.slice(0, -1) : s) };
  } else if (format === 'pretty') {
    const color = !process.env.NO_COLOR;
    dest = { write: (s: string) => stderr().write(prettyLine(s, color)) };
  } else if (isRegularFile(2)) {
    dest = fileDestination(2);
  } else {
    // journald's socket or a pipe: never waited for, given up when its reader is gone.
    dest = pipeDestination(stderr(), time);
  }
  const redactFields = memoRedact();
  const root = pino(
    {
      level: opts.level ?? 'info',
      base: null,
      timestamp: time,
      formatters: { level: (label) => ({ level: label }), bindings: redactFields, log: redactFields },
    },
    dest,
  );
  const requestsOn = root.isLevelEnabled('info');
  const wrap = (p: pino.Logger, bindings: string): Logger => ({
    debug: (m, f) => (f ? p.debug(f, m) : p.debug(m)),
    info: (m, f) => (f ? p.info(f, m) : p.info(m)),
    warn: (m, f) => (f ? p.warn(f, m) : p.warn(m)),
    error: (m, f) => (f ? p.error(f, m) : p.error(m)),
    // Redacted here: pino applies `formatters.bindings` to its base bindings, not to a child's.
    child: (fields) => {
      const clean = redactFields(fields);
      return wrap(p.child(clean), bindings + jsonMembers(clean));
    },
    request: requestsOn ? (e) => dest.write(requestLine(time(), bindings, e)) : () => {},
  });
  const log = opts.base ? wrap(root, '').child(opts.base) : wrap(root, '');
  return {
    ...log,
    flush() {
      try {
        dest.flushSync?.();
      } catch {
        /* a file that cannot be written (disk full): the lines are lost */
      }
    },
  };
}

/**
 * The request line, byte for byte what pino writes for `info('request', {method, path, status,
 * ms, client_id})` (test/unit/log-request-line.test.ts holds them equal). Under load pino's
 * generic path (the per-call field loop, redaction check, the logger's prototype chain) cost
 * ~4–8 µs per request, a tenth of a fetch; this one fixed shape needs none of it and carries no
 * secret. Every other entry goes through pino.
 */
function requestLine(time: string, bindings: string, e: RequestLogEntry): string {
  const client = e.clientId === undefined ? '' : `,"client_id":${JSON.stringify(e.clientId)}`;
  return `{"level":"info"${time}${bindings},"method":${JSON.stringify(e.method)},"path":${JSON.stringify(e.path)},"status":${e.status},"ms":${e.ms}${client},"msg":"request"}\n`;
}

/**
 * `,"key":value` per field, as pino writes a child's bindings (values already redacted). A value
 * JSON cannot write (a cycle) must not make `child()` throw: it reads as a placeholder.
 */
function jsonMembers(fields: Record<string, unknown>): string {
  let out = '';
  for (const k in fields) {
    let text: string | undefined;
    try {
      text = JSON.stringify(fields[k]);
    } catch {
      text = '"[unserializable]"';
    }
    if (text !== undefined) out += `,${JSON.stringify(k)}:${text}`;
  }
  return out;
}

/** pino's time field; lines logged within the same millisecond share one string. */
function isoTimestamp(now: () => number): () => string {
  let lastMs = NaN;
  let last = '';
  return () => {
    const ms = now();
    if (ms !== lastMs) {
      lastMs = ms;
      last = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return last;
  };
}

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** A file destination writes when this much is gathered, or this long after the first pending line. */
const FILE_BATCH_BYTES = 16_384;
const FILE_BATCH_MS = 25;

/**
 * Log lines for a file (stderr redirected to one): gathered and written together, by size or
 * FILE_BATCH_MS after the first one, in one synchronous write from the main thread. A request
 * never waits on the log, a busy daemon makes one write per ~60 request lines, and no line
 * costs a thread-pool round trip (a file write does not block the way a pipe can). Written
 * out at exit and by flush(). pino.destination's `minLength` + `periodicFlush` (sonic-boom)
 * batches too, but measured ~1 µs more per request (it re-measures the pending buffer's byte
 * length on every line) and writes an empty string every period when idle.
 */
function fileDestination(fd: number): DestinationStream & { flushSync: () => void } {
  let pending = '';
  let timer: NodeJS.Timeout | null = null;
  const flushSync = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending) return;
    let buf = Buffer.from(pending);
    pending = '';
    while (buf.length > 0) buf = buf.subarray(writeSync(fd, buf));
  };
  const flushSoon = () => {
    try {
      flushSync();
    } catch {
      // A full disk or a closed descriptor: the lines are lost, the daemon keeps serving.
      pending = '';
    }
  };
  process.once('exit', flushSoon);
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= FILE_BATCH_BYTES) flushSoon();
      else if (!timer) timer = setTimeout(flushSoon, FILE_BATCH_MS).unref();
    },
    flushSync,
  };
}

const COLORS: Record<string, string> = { debug: '\x1b[90m', info: '\x1b[32m', warn: '\x1b[33m', error: '\x1b[31m' };

/** `12:00:01.234 INFO  payd listening  url=http://… livemode=true` from one JSON line. */
export function prettyLine(json: string, color: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json);
  } catch {
    return json;
  }
  const { time, level, msg, ...fields } = entry;
  const label = String(level ?? '').toUpperCase().padEnd(5);
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const rest = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)}`)
    .join(' ');
  const lvl = color ? `${COLORS[String(level)] ?? ''}${label}\x1b[0m` : label;
  return `${clock} ${lvl} ${String(msg ?? '')}${rest ? `  ${rest}` : ''}\n`;
}

/** A logger that does nothing at all (tests, benchmarks): not even formatting. */
export const silentLogger = (): Logger => {
  const noop = () => {};
  const log: Logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => log };
  return log;
};
