import { fstatSync, writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';

export function isRegularFile(fd: number): boolean {
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
export function fileDestination(fd: number): DestinationStream & { flushSync: () => void } {
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
