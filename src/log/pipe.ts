import type { DestinationStream } from 'pino';
import type { StdStream } from '../stdio.ts';

/** Lines are handed to the pipe when this much is gathered, or this long after the first pending one. */
const BATCH_BYTES = 16_384;
const BATCH_MS = 25;
/** A reader this far behind (journald stalled, a paused `| less`) gets no more lines until it catches up. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/**
 * Log lines for a pipe or socket (journald, `| tee`): gathered like the file destination, then
 * handed to the stream, which writes what the pipe takes at once and queues the rest without
 * blocking. Nothing here ever waits for the reader: a reader that is gone (EPIPE) turns logging
 * off for good, one that is too slow loses lines (counted, and said once it catches up), so a
 * lost log pipe never stalls requests, shutdown or exit. pino.destination (sonic-boom) did stall:
 * its flushSync retries a failed write every 100 ms forever, EPIPE included, on the main thread.
 */
export function pipeDestination(stream: StdStream, time: () => string): DestinationStream & { flushSync: () => void } {
  let pending = '';
  let timer: NodeJS.Timeout | null = null;
  let dropped = 0;
  const handOver = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending || stream.broken) {
      pending = '';
      return;
    }
    const text = pending;
    pending = '';
    if (stream.queued > MAX_QUEUED_BYTES) {
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) dropped++;
      return;
    }
    if (dropped > 0) {
      stream.write(`{"level":"warn"${time()},"dropped":${dropped},"msg":"log lines dropped: the reader of stderr fell behind"}\n`);
      dropped = 0;
    }
    stream.write(text);
  };
  atExit(handOver);
  return {
    write(line: string) {
      if (stream.broken) return;
      pending += line;
      if (pending.length >= BATCH_BYTES) handOver();
      else if (!timer) timer = setTimeout(handOver, BATCH_MS).unref();
    },
    flushSync: handOver,
  };
}

/** One 'exit' listener for every pipe destination of the process (a CLI test run makes hundreds). */
const exitHooks = new Set<() => void>();
function atExit(hook: () => void): void {
  // At exit whatever the pipe takes at once still gets out; the rest is lost, never waited for.
  if (exitHooks.size === 0) process.once('exit', () => exitHooks.forEach((h) => h()));
  exitHooks.add(hook);
}
