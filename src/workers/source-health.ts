import type { Clock } from '../domain/ports.ts';
import type { CycleReporter } from '../runtime/cycle.ts';

/**
 * - standby: not running here (another process holds the worker lease)
 * - starting: running, no cycle completed since it started, none failed yet: not ready
 * - down: running, no cycle completed since it started, and the last one failed: not ready
 *   (a source that never reached its upstream is not "failing", it never worked)
 * - ok / failing: the last cycle completed / failed, and one completed recently enough
 * - stale: no completed cycle for longer than 3 intervals plus the backoff it is waiting out; it stays
 *   stale until a cycle completes (a longer backoff after the next failure does not make it "failing" again)
 * - crashed: run() threw or returned; restarting with backoff
 * - blocked: the last cycle failed in a way only the operator can fix (a revoked OAuth refresh token); still retried
 * - lagging: cycles may complete, but the processed position is further behind the upstream's head than maxLagSeconds
 */
export type SourceState = 'standby' | 'starting' | 'down' | 'ok' | 'failing' | 'stale' | 'crashed' | 'blocked' | 'lagging';

export interface SourceStatus {
  state: SourceState;
  last_ok_at?: string;
  /** The last failure's message while the source has not completed a cycle since. */
  last_error?: string;
  /** How far behind the upstream's head the processed position is, seconds (payd_source_lag_seconds). */
  lag_seconds?: number;
  /** The limit it is held to (methods.<M>.maxLagSeconds), when one applies. */
  max_lag_seconds?: number;
}

/** Where one source is on its way through cycles; fed by its CycleReporter and its supervisor. */
export class SourceHealth {
  #running = false;
  #startedAt = 0;
  #intervalMs: number | undefined;
  #lastOkAt: number | undefined;
  #lastError: string | undefined;
  #backoffMs = 0;
  #crashed = false;
  #needsOperator = false;
  #asOf: number | undefined;
  /** Went stale since the last completed cycle. */
  #stale = false;

  constructor(
    readonly key: string,
    readonly name: string,
    private readonly clock: Clock,
    /** methods.<M>.maxLagSeconds in ms; undefined: lag is shown, never fails readiness. */
    readonly maxLagMs?: number,
  ) {}

  readonly reporter: CycleReporter = {
    interval: (ms) => {
      this.#intervalMs = ms;
    },
    ok: () => {
      this.#lastOkAt = this.clock.now();
      this.#lastError = undefined;
      this.#backoffMs = 0;
      this.#crashed = false;
      this.#needsOperator = false;
      this.#stale = false;
    },
    failed: (error, retryInMs, needsOperator) => {
      this.#lastError = error;
      this.#backoffMs = retryInMs;
      this.#needsOperator = needsOperator === true;
    },
    caughtUp: (asOf) => {
      this.#asOf = Math.max(this.#asOf ?? asOf, asOf);
    },
  };

  started(): void {
    if (!this.#running) {
      this.#startedAt = this.clock.now();
      this.#stale = false;
    }
    this.#running = true;
  }

  crashed(error: string, retryInMs: number): void {
    this.#crashed = true;
    this.#lastError = error;
    this.#backoffMs = retryInMs;
  }

  stopped(): void {
    this.#running = false;
    this.#crashed = false;
    this.#needsOperator = false;
    this.#lastError = undefined;
    this.#backoffMs = 0;
  }

  /** Unix ms of the last completed cycle (metrics). */
  get lastOkAt(): number | undefined {
    return this.#lastOkAt;
  }

  /**
   * ms behind the upstream while running: now − the position's as-of time; for a source that reports
   * no position, since its last completed cycle. Counted from this start at the latest: a position
   * from an earlier leadership says nothing about the upstream since. Undefined when not running.
   */
  lagMs(): number | undefined {
    const from = this.position();
    return from === undefined ? undefined : Math.max(0, this.clock.now() - from);
  }

  /**
   * Whether a cycle ever completed in this process, and if not, what went wrong so far: a source
   * that never reached its upstream has no lag to speak of, only its cause.
   */
  reach(): { reached: boolean; error?: string } {
    const reached = this.#lastOkAt !== undefined || this.#asOf !== undefined;
    return reached || this.#lastError === undefined ? { reached } : { reached, error: this.#lastError };
  }

  /** The as-of time (ms) lag counts from while running; undefined when not running. */
  position(): number | undefined {
    if (!this.#running) return undefined;
    return Math.max(this.#asOf ?? this.#lastOkAt ?? this.#startedAt, this.#startedAt);
  }

  status(): SourceStatus {
    const out: SourceStatus = { state: this.#state() };
    if (this.#lastOkAt !== undefined) out.last_ok_at = new Date(this.#lastOkAt).toISOString();
    if (this.#lastError !== undefined) out.last_error = this.#lastError;
    const lag = this.lagMs();
    if (lag !== undefined) out.lag_seconds = Math.round(lag / 100) / 10;
    if (this.maxLagMs !== undefined) out.max_lag_seconds = this.maxLagMs / 1000;
    return out;
  }

  #state(): SourceState {
    const state = this.#cycleState();
    // Only a source that otherwise looks ready can be "lagging": the other states say more.
    if ((state === 'ok' || state === 'failing') && this.maxLagMs !== undefined && (this.lagMs() ?? 0) > this.maxLagMs) return 'lagging';
    return state;
  }

  #cycleState(): SourceState {
    if (!this.#running) return 'standby';
    if (this.#crashed) return 'crashed';
    if (this.#needsOperator) return 'blocked';
    // A source that has not said how often it cycles cannot be overdue.
    if (this.#intervalMs !== undefined) {
      const since = this.clock.now() - Math.max(this.#lastOkAt ?? 0, this.#startedAt);
      if (this.#stale || since > 3 * this.#intervalMs + this.#backoffMs) {
        this.#stale = true;
        return 'stale';
      }
    }
    // Completed before this start (an earlier leadership) does not count: the upstream may be gone since.
    if (this.#lastOkAt === undefined || this.#lastOkAt < this.#startedAt) return this.#lastError === undefined ? 'starting' : 'down';
    return this.#lastError === undefined ? 'ok' : 'failing';
  }
}

/** The states /readyz answers 503 for: only ok, failing (one completed recently) and standby are ready. */
export const isDown = (s: SourceStatus): boolean => s.state !== 'ok' && s.state !== 'failing' && s.state !== 'standby';
