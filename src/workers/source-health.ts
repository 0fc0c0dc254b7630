import type { Clock } from '../domain/ports.ts';
import type { CycleReporter } from './cycle.ts';

/**
 * - standby: not running here (another process holds the worker lease)
 * - starting: running, no cycle completed since it started, none failed yet: not ready
 * - down: running, no cycle completed since it started, and the last one failed: not ready
 *   (a source that never reached its upstream is not "failing", it never worked)
 * - ok / failing: the last cycle completed / failed, and one completed recently enough
 * - stale: no completed cycle for longer than 3 intervals plus the backoff it is waiting out
 * - crashed: run() threw or returned; restarting with backoff
 * - blocked: the last cycle failed in a way only the operator can fix (a revoked OAuth refresh token); still retried
 */
export type SourceState = 'standby' | 'starting' | 'down' | 'ok' | 'failing' | 'stale' | 'crashed' | 'blocked';

export interface SourceStatus {
  state: SourceState;
  last_ok_at?: string;
  /** The last failure's message while the source has not completed a cycle since. */
  last_error?: string;
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

  constructor(
    readonly key: string,
    readonly name: string,
    private readonly clock: Clock,
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
    },
    failed: (error, retryInMs, needsOperator) => {
      this.#lastError = error;
      this.#backoffMs = retryInMs;
      this.#needsOperator = needsOperator === true;
    },
  };

  started(): void {
    if (!this.#running) this.#startedAt = this.clock.now();
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

  status(): SourceStatus {
    const out: SourceStatus = { state: this.#state() };
    if (this.#lastOkAt !== undefined) out.last_ok_at = new Date(this.#lastOkAt).toISOString();
    if (this.#lastError !== undefined) out.last_error = this.#lastError;
    return out;
  }

  #state(): SourceState {
    if (!this.#running) return 'standby';
    if (this.#crashed) return 'crashed';
    if (this.#needsOperator) return 'blocked';
    // A source that has not said how often it cycles cannot be overdue.
    if (this.#intervalMs !== undefined) {
      const since = this.clock.now() - Math.max(this.#lastOkAt ?? 0, this.#startedAt);
      if (since > 3 * this.#intervalMs + this.#backoffMs) return 'stale';
    }
    // Completed before this start (an earlier leadership) does not count: the upstream may be gone since.
    if (this.#lastOkAt === undefined || this.#lastOkAt < this.#startedAt) return this.#lastError === undefined ? 'starting' : 'down';
    return this.#lastError === undefined ? 'ok' : 'failing';
  }
}

/** The states /readyz answers 503 for: only ok, failing (one completed recently) and standby are ready. */
export const isDown = (s: SourceStatus): boolean => s.state !== 'ok' && s.state !== 'failing' && s.state !== 'standby';
