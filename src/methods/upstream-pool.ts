/**
 * Several upstreams for one chain source (TronGrid-compatible APIs, Solana JSON-RPC endpoints),
 * each with its own health, and the order to try them in. No timers and no I/O: the source
 * calls `attempt` around each request and asks `order()` which endpoint to use next; the
 * clock and jitter are injected.
 *
 * Health of one endpoint: latency (EWMA of successful calls), consecutive failures (a failing
 * endpoint rests for a jittered exponential backoff), throttling (429, TronGrid's 403/503
 * rate-limit bodies, Solana's -32429: it rests for the time it asked for, else the backoff),
 * and the head it last reported (TRON solidified block, Solana slot): one far behind the
 * newest head any endpoint reports is used only when nothing else answers.
 */
import type { Clock, Metrics, Random } from '../domain/ports.ts';
import { jittered } from '../workers/loop.ts';

/** One configured endpoint, its secret already read. */
export interface EndpointSpec {
  url: string;
  apiKey?: string;
  /** Divides the latency score: weight 2 is preferred over an equally fast weight 1. */
  weight: number;
}

/** What one failed call says about the endpoint that answered it. */
export type Fault = { kind: 'throttled'; retryAfterMs?: number } | { kind: 'error' };

export type RequestOutcome = 'ok' | 'throttled' | 'error';

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
  /** What the provider said is left of its quota (a rate-limit header), as it said it. */
  quota?: string;
  requests: number;
}

export interface Member<E extends EndpointSpec = EndpointSpec> {
  readonly spec: E;
  readonly label: string;
  readonly health: EndpointHealth;
}

export interface PoolOptions<E extends EndpointSpec> {
  endpoints: E[];
  clock: Clock;
  random: Random;
  /** Rest after failure k: min(maxMs, baseMs * 2^(k-1)), ±20 % jitter. */
  backoff: { baseMs: number; maxMs: number };
  /** An endpoint whose head trails the newest by more than this (blocks, slots) counts as behind. */
  behindBy: number;
  metrics?: UpstreamMetrics;
  /** Weight of the newest latency sample in the EWMA. */
  ewmaAlpha?: number;
}

/** Logs and metrics name an endpoint by this: keys live in paths (QuickNode, Alchemy) and queries (Helius), never shown. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(unreadable url)';
  }
  // A long opaque path segment is a token; readable ones (/v2, /rpc, /solana) stay.
  const path = u.pathname
    .split('/')
    .map((seg) => (seg.length >= 16 && /^[A-Za-z0-9_-]+$/.test(seg) && /\d/.test(seg) ? '…' : seg.includes('%7BapiKey%7D') ? '…' : seg))
    .join('/');
  return `${u.protocol}//${u.host}${path === '/' ? '' : path}`;
}

/** The URL to call: a `{apiKey}` placeholder (key in the path or query, as many providers want it) filled in. */
export const callUrl = (e: EndpointSpec): string => (e.apiKey !== undefined && e.url.includes('{apiKey}') ? e.url.split('{apiKey}').join(encodeURIComponent(e.apiKey)) : e.url);

export function createUpstreamPool<E extends EndpointSpec>(o: PoolOptions<E>) {
  const alpha = o.ewmaAlpha ?? 0.3;
  const labels = new Set<string>();
  const members: Member<E>[] = o.endpoints.map((spec, i) => {
    let label = redactUrl(spec.url);
    // Two endpoints of one provider differ only in their key: tell them apart by position.
    if (labels.has(label)) label = `${label}#${i + 1}`;
    labels.add(label);
    return { spec, label, health: { label, weight: spec.weight, failures: 0, restUntil: 0, throttled: false, requests: 0 } };
  });

  const newestHead = (): number | undefined => {
    let best: number | undefined;
    for (const m of members) if (m.health.head !== undefined && (best === undefined || m.health.head > best)) best = m.health.head;
    return best;
  };
  const behind = (m: Member<E>, newest: number | undefined): boolean => newest !== undefined && m.health.head !== undefined && newest - m.health.head > o.behindBy;
  /** Lower is better: latency over weight; an endpoint never measured counts as fast so that it gets measured. */
  const score = (m: Member<E>): number => (m.health.latencyMs ?? 0) / m.spec.weight;

  function rest(m: Member<E>, ms: number, throttled: boolean): void {
    const now = o.clock.now();
    m.health.restUntil = Math.max(m.health.restUntil, now + ms);
    m.health.throttled = throttled;
  }

  return {
    members,

    /**
     * Every endpoint, best first: those not resting, ahead before behind, by score; then the
     * resting ones by the end of their rest. A caller tries them in turn and stops at the first
     * that serves: a failing endpoint is retried only when its rest is over or nothing else answers.
     */
    order(): Member<E>[] {
      const now = o.clock.now();
      const newest = newestHead();
      const ready = members.filter((m) => m.health.restUntil <= now);
      const resting = members.filter((m) => m.health.restUntil > now);
      ready.sort((a, b) => Number(behind(a, newest)) - Number(behind(b, newest)) || score(a) - score(b) || members.indexOf(a) - members.indexOf(b));
      resting.sort((a, b) => a.health.restUntil - b.health.restUntil);
      return [...ready, ...resting];
    },

    /** Endpoints not resting now. */
    ready(): Member<E>[] {
      const now = o.clock.now();
      return members.filter((m) => m.health.restUntil <= now);
    },

    /**
     * Runs one request against `m`, recording how it went. `classify` reads a failure;
     * an abort (shutdown) is not the endpoint's fault and records nothing.
     */
    /** A call to `m` answered, in `ms`. */
    succeeded(m: Member<E>, ms: number): void {
      m.health.requests += 1;
      m.health.latencyMs = m.health.latencyMs === undefined ? ms : alpha * ms + (1 - alpha) * m.health.latencyMs;
      m.health.failures = 0;
      m.health.throttled = false;
      o.metrics?.upstreamRequest(m.label, 'ok');
    },

    /** A call to `m` failed: it rests for the wait it asked for (throttled) or a growing backoff. */
    failed(m: Member<E>, fault: Fault, error: unknown): void {
      m.health.requests += 1;
      m.health.failures += 1;
      m.health.lastError = (error instanceof Error ? error.message : String(error)).slice(0, 300);
      m.health.lastErrorAt = o.clock.now();
      const backoff = jittered(Math.min(o.backoff.maxMs, o.backoff.baseMs * 2 ** Math.min(30, m.health.failures - 1)), o.random);
      if (fault.kind === 'throttled') {
        const ms = fault.retryAfterMs ?? backoff;
        rest(m, ms, true);
        o.metrics?.upstreamRequest(m.label, 'throttled');
        o.metrics?.upstreamThrottled(m.label, ms / 1000);
      } else {
        rest(m, backoff, false);
        o.metrics?.upstreamRequest(m.label, 'error');
      }
    },

    /**
     * Runs one request against `m`, recording how it went. `classify` reads a failure;
     * an abort (shutdown) is not the endpoint's fault and records nothing.
     */
    async attempt<T>(m: Member<E>, signal: AbortSignal, call: () => Promise<T>, classify: (err: unknown) => Fault): Promise<T> {
      const started = o.clock.now();
      try {
        const out = await call();
        this.succeeded(m, Math.max(0, o.clock.now() - started));
        return out;
      } catch (err) {
        if (!signal.aborted) this.failed(m, classify(err), err);
        throw err;
      }
    },

    /** The head `m` reported now; returns the newest any endpoint has reported. */
    observeHead(m: Member<E>, head: number): number {
      m.health.head = head;
      m.health.headAt = o.clock.now();
      return newestHead()!;
    },

    /** A provider's own count of what is left (a rate-limit header). */
    observeQuota(m: Member<E>, quota: string): void {
      m.health.quota = quota.slice(0, 100);
    },

    newestHead,
    /** Whether `m` trails the newest head by more than `behindBy`. */
    isBehind: (m: Member<E>): boolean => behind(m, newestHead()),

    snapshot(): EndpointHealth[] {
      return members.map((m) => ({ ...m.health }));
    },
  };
}

export type UpstreamPool<E extends EndpointSpec = EndpointSpec> = ReturnType<typeof createUpstreamPool<E>>;

/** Thrown when every endpoint failed this cycle: the method is down only then. */
export class AllEndpointsFailed extends Error {
  override name = 'AllEndpointsFailed';
  constructor(
    readonly what: string,
    readonly errors: { label: string; error: unknown }[],
  ) {
    const detail = errors.map((e) => `${e.label}: ${e.error instanceof Error ? e.error.message : String(e.error)}`).join('; ');
    super(`every ${what} endpoint failed (${detail})`);
  }
}
