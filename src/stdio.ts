/**
 * The process's stdout and stderr, for readers that may be slow or gone.
 *
 * Node writes a pipe asynchronously: what the pipe does not take at once (64 KiB) waits in the
 * stream, and `process.exit` drops it. So output is complete only once `flushed()` resolves,
 * and the CLI waits for that before it exits. A reader that went away (EPIPE from a closed pipe,
 * EIO from a closed terminal) makes the stream `broken`: later output is dropped at once, never
 * retried and never raised as an error, so a lost log pipe cannot stall or kill payd.
 */
export interface StdStream {
  write(text: string): void;
  /** Resolves once everything written so far reached the reader's pipe: true, or false when some output was lost. */
  flushed(): Promise<boolean>;
  /** The reader is gone: nothing more is written. */
  readonly broken: boolean;
  /** Bytes written but not yet taken by the pipe. */
  readonly queued: number;
}

function guard(stream: NodeJS.WriteStream): StdStream {
  let broken = false;
  let lost = false;
  stream.on('error', () => {
    broken = true;
    lost = true;
  });
  const gone = () => broken || stream.destroyed;
  return {
    write(text) {
      if (gone()) lost = true;
      else stream.write(text);
    },
    flushed: () =>
      new Promise((resolve) => {
        if (gone() || stream.writableLength === 0) return resolve(!lost);
        // Callbacks run in order: this one runs after every earlier write finished (or failed).
        stream.write('', (err) => resolve(!err && !lost));
      }),
    get broken() {
      return gone();
    },
    get queued() {
      return stream.writableLength;
    },
  };
}

let out: StdStream | undefined;
let err: StdStream | undefined;

/** Created on first use, not at import (the error listener must be there before the first write). */
export const stdout = (): StdStream => (out ??= guard(process.stdout));
export const stderr = (): StdStream => (err ??= guard(process.stderr));
