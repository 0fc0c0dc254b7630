/**
 * One pool endpoint's health and how each call to it is recorded: latency (EWMA of successful
 * calls), consecutive failures (a failing endpoint rests for a jittered exponential backoff),
 * throttling (429, TronGrid's 403/503 rate-limit bodies, Solana's -32429: it rests for the time
 * it asked for, else the backoff), and what the provider says is left of its quota.
 */
import type { Clock, Metrics, Random } from '../domain/ports.ts';
import { jittered } from '../runtime/sleep.ts';
import type { EndpointSpec } from './endpoints.ts';

/** What one failed call says about the endpoint that answered it. */
export type Fault = { kind: 'throttled'; retryAfterMs?: number } | { kind: 'error' };

/** The Metrics side the pool feeds (payd_upstream_requests_total, payd_upstream_throttled_seconds_total). */
export type UpstreamMetrics = Pick<Metrics, 'upstreamRequest' | 'upstreamThrottled'>;

export interface EndpointHealth {
  /** The URL as logs and metrics show it: no key, no query, no credentials. */
  label: string;
  weight: number;
  /** EWMA of successful calls, ms. */
  latencyMs?: number;
  /** Failures since the last success. */
  failures: number;
  /** Resting until (ms): after a failure or a throttle, tried again only when nothing else answers. */
  restUntil: number;
  throttled: boolean;
  lastError?: string;
  lastErrorAt?: number;
  head?: number;
  headAt?: number;
  /** The block time of `head` (ms), where the chain's head read carries one (TRON). */
  headTime?: number;
  /** Why its head is not believed (ahead of the others, past the wall clock); absent when it is. */
  suspect?: string;
  /** What the provider said is left of its quota (a rate-limit header), as it said it. */
  quota?: string;
  requests: number;
}

export interface Member<E extends EndpointSpec = EndpointSpec> {
  readonly spec: E;
  readonly label: string;
  readonly health: EndpointHealth;
}

export interface HealthOptions {
  clock: Clock;
  random: Random;
  /** Rest after failure k: min(maxMs, baseMs * 2^(k-1)), ±20 % jitter. */
  backoff: { baseMs: number; maxMs: number };
  metrics?: UpstreamMetrics;
  /** Weight of the newest latency sample in the EWMA. */
  ewmaAlpha?: number;
}

export function createHealthRecorder<E extends EndpointSpec>(options: HealthOptions) {
  const alpha = options.ewmaAlpha ?? 0.3;

  function rest(m: Member<E>, ms: number, throttled: boolean): void {
    const now = options.clock.now();
    m.health.restUntil = Math.max(m.health.restUntil, now + ms);
    m.health.throttled = throttled;
  }

  /** A call to `m` answered, in `ms`. */
  function succeeded(m: Member<E>, ms: number): void {
    m.health.requests += 1;
    m.health.latencyMs = m.health.latencyMs === undefined ? ms : alpha * ms + (1 - alpha) * m.health.latencyMs;
    m.health.failures = 0;
    m.health.throttled = false;
    options.metrics?.upstreamRequest(m.label, 'ok');
  }

  /** A call to `m` failed: it rests for the wait it asked for (throttled) or a growing backoff. */
  function failed(m: Member<E>, fault: Fault, error: unknown): void {
    m.health.requests += 1;
    m.health.failures += 1;
    m.health.lastError = (error instanceof Error ? error.message : String(error)).slice(0, 300);
    m.health.lastErrorAt = options.clock.now();
    const backoff = jittered(Math.min(options.backoff.maxMs, options.backoff.baseMs * 2 ** Math.min(30, m.health.failures - 1)), options.random);
    if (fault.kind === 'throttled') {
      const ms = fault.retryAfterMs ?? backoff;
      rest(m, ms, true);
      options.metrics?.upstreamRequest(m.label, 'throttled');
      options.metrics?.upstreamThrottled(m.label, ms / 1000);
    } else {
      rest(m, backoff, false);
      options.metrics?.upstreamRequest(m.label, 'error');
    }
  }

  /**
   * Runs one request against `m`, recording how it went. `classify` reads a failure;
   * an abort (shutdown) is not the endpoint's fault and records nothing.
   */
  async function attempt<T>(m: Member<E>, signal: AbortSignal, call: () => Promise<T>, classify: (err: unknown) => Fault): Promise<T> {
    const started = options.clock.now();
    try {
      const out = await call();
      succeeded(m, Math.max(0, options.clock.now() - started));
      return out;
    } catch (err) {
      if (!signal.aborted) failed(m, classify(err), err);
      throw err;
    }
  }

  /** A provider's own count of what is left (a rate-limit header). */
  function observeQuota(m: Member<E>, quota: string): void {
    m.health.quota = quota.slice(0, 100);
  }

  return { succeeded, failed, attempt, observeQuota };
}
