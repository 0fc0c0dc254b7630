import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * How a running source tells its supervisor that it completed (or failed) a cycle.
 * Sources never pass this around: the supervisor runs `source.run` inside a context
 * and runLoop (or the mailbox watcher) reports to whatever context it runs in, so a
 * new source on runLoop is watched without opting in.
 */
export interface CycleReporter {
  /** The pause between healthy cycles, ms: the yardstick for "stale". */
  interval(ms: number): void;
  /** A cycle completed. */
  ok(): void;
  /** A cycle failed; the next try is in `retryInMs`. `needsOperator`: retrying alone will not fix it. */
  failed(error: string, retryInMs: number, needsOperator?: boolean): void;
}

// Holds no state of its own: each supervised run carries its own reporter.
const context = new AsyncLocalStorage<CycleReporter>();

export const runWithCycleReporter = <T>(reporter: CycleReporter, fn: () => T): T => context.run(reporter, fn);

/** The reporter of the source this code runs under, if any (none in tests and the CLI). */
export const currentCycleReporter = (): CycleReporter | undefined => context.getStore();

/** Runs `fn` outside any source's context: a side loop of a source (UPI's parked mail) must not report its health. */
export const withoutCycleReporter = <T>(fn: () => T): T => context.exit(fn);
