/**
 * How a running source tells its supervisor that it completed (or failed) a cycle.
 * Sources never pass this around: the supervisor hands `source.run` a signal that carries
 * the reporter, and runLoop (or the mailbox watcher) reports to the reporter of the signal
 * it runs on, so a new source on runLoop is watched without opting in.
 * (Carried on the signal rather than in an AsyncLocalStorage: on Node 20 one active
 * AsyncLocalStorage puts a hook on every promise of the process, API requests included.)
 */
export interface CycleReporter {
  /** The pause between healthy cycles, ms: the yardstick for "stale". */
  interval(ms: number): void;
  /** A cycle completed. */
  ok(): void;
  /**
   * Everything the upstream showed at wall time `asOf` (ms) is processed: the time payd first saw
   * the head its last complete pass reached (a stuck head keeps its first-seen time), or the start of
   * the last completed mailbox sync. Lag is now − asOf. Sources that never call it lag by their last cycle.
   */
  caughtUp?(asOf: number): void;
  /** A cycle failed; the next try is in `retryInMs`. `needsOperator`: retrying alone will not fix it. */
  failed(error: string, retryInMs: number, needsOperator?: boolean): void;
}

const REPORTER = Symbol('payd.cycleReporter');
type ReportingSignal = AbortSignal & { [REPORTER]?: CycleReporter };

/** Runs `fn` with a signal that aborts with `signal` and carries `reporter`. */
export function runWithCycleReporter<T>(reporter: CycleReporter, signal: AbortSignal, fn: (signal: AbortSignal) => T): T {
  const scoped: ReportingSignal = AbortSignal.any([signal]);
  scoped[REPORTER] = reporter;
  return fn(scoped);
}

/** The reporter of the source whose signal this is, if any (none in tests and the CLI). */
export const cycleReporterOf = (signal: AbortSignal): CycleReporter | undefined => (signal as ReportingSignal)[REPORTER];

/** A signal that aborts with `signal` but reports nowhere: a side loop of a source (UPI's parked mail) must not report its health. */
export const withoutCycleReporter = (signal: AbortSignal): AbortSignal => AbortSignal.any([signal]);
