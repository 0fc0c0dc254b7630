import pino, { type DestinationStream } from 'pino';
import type { Logger } from '../domain/ports.ts';
import { fileDestination, isRegularFile } from './file-destination.ts';
import { prettyLine } from './pretty.ts';
import { memoRedact } from './redact.ts';
import { isoTimestamp, jsonMembers, requestLine } from './request-line.ts';
import { pipeDestination } from './pipe.ts';
import { stderr } from '../stdio.ts';

// The root logger; its parts sit beside it: redaction, the request-line formatter, the batched
// file destination, the pipe/journald destination, the pretty printer.
export { redact } from './redact.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The root logger of a process: a Logger that can also be flushed (at exit, on a fatal error). */
export interface RootLogger extends Logger {
  /** Writes out whatever is buffered, synchronously. */
  flush(): void;
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

/** A logger that does nothing at all (tests, benchmarks): not even formatting. */
export const silentLogger = (): Logger => {
  const noop = () => {};
  const log: Logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => log };
  return log;
};
