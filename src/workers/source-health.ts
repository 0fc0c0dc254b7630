import type { Clock } from '../domain/ports.ts';
import type { CycleReporter } from './cycle.ts';

/**
 * - standby: not running here (another process holds the worker lease)
 * - starting: running, no cycle completed yet, not overdue
 * - ok / failing: the last cycle completed / failed, and one completed recently enough
 * - stale: no completed cycle for longer than 3 intervals plus the backoff it is waiting out
 * - crashed: run() threw or returned; restarting with backoff
 * - blocked: the last cycle failed in a way only the operator can fix (a revoked OAuth refresh token); still retried
 */
export type SourceState = 'standby' | 'starting' | 'ok' | 'failing' | 'stale' | 'crashed' | 'blocked';

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
    if (this.#lastOkAt === undefined) return this.#lastError === undefined ? 'starting' : 'failing';
    return this.#lastError === undefined ? 'ok' : 'failing';
  }
}

/** A failing state /readyz answers 503 for. */
export const isDown = (s: SourceStatus): boolean => s.state === 'stale' || s.state === 'crashed' || s.state === 'blocked';
