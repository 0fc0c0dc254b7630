/**
 * Several upstreams for one chain source (TronGrid-compatible APIs, Solana JSON-RPC endpoints),
 * each with its own health, and the order to try them in. No timers and no I/O: the source
 * calls `attempt` around each request and asks `order()` which endpoint to use next; the
 * clock and jitter are injected.
 *
 * Health of one endpoint: latency (EWMA of successful calls), consecutive failures (a failing
 * endpoint rests for a jittered exponential backoff), throttling (429, TronGrid's 403/503
 * rate-limit bodies, Solana's -32429: it rests for the time it asked for, else the backoff),
 * and the head it last reported (TRON solidified block, Solana slot).
 *
 * No endpoint is believed on its own word (the contract every chain family follows):
 * - A head is judged against the others: one beyond what the newest agreed head (the anchor)
 *   could have grown to since it was first seen, and beyond every other endpoint's head, by more
 *   than `aheadBy`, is suspect, not leading; so is a head whose block time is past the wall clock
 *   plus CLOCK_SKEW_MS. A suspect endpoint is asked last and its head counts for nothing.
 * - The agreed head is the `quorum`-th newest believable head (fewer when fewer are believable):
 *   a cursor or checkpoint never passes it, whatever one endpoint lists.
 * - An endpoint trailing the newest believable head by more than `behindBy` is asked after those
 *   at it, so a frozen or lagging endpoint stops being the one that serves.
 * - With `quorum` ≥ 2, a transaction moves money only once `quorum - 1` other endpoints confirm it
 *   (`confirm`): one that none knows yet waits, one another contradicts is not settled.
 * With one endpoint there is nothing to compare: payd trusts it entirely (the doctor says so).
 */
import type { Clock, Metrics, Random } from '../domain/ports.ts';
import { jittered } from '../runtime/sleep.ts';
import { createHeadWatch } from '../domain/head-watch.ts';

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

export interface PoolOptions<E extends EndpointSpec> {
  endpoints: E[];
  clock: Clock;
  random: Random;
  /** Rest after failure k: min(maxMs, baseMs * 2^(k-1)), ±20 % jitter. */
  backoff: { baseMs: number; maxMs: number };
  /** An endpoint whose head trails the newest believable one by more than this (blocks, slots) is asked after those at it. */
  behindBy: number;
  /**
   * How far (blocks, slots) a head may run ahead of what the others make plausible before it is
   * suspect. Default 10 × behindBy.
   */
  aheadBy?: number;
  /** The fastest the chain makes heads, ms per block or slot (a little under its nominal time). Default 1 ms (no time bound). */
  headIntervalMs?: number;
  /** Endpoints that must agree: the agreed head's rank and a settlement's confirmations. Default min(2, endpoints). */
  quorum?: number;
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

/** How far past the wall clock a block time may be and still be believed, ms. */
export const CLOCK_SKEW_MS = 60_000;

/** What another endpoint says about a transaction one endpoint served. */
export type Verdict = 'same' | 'unknown' | 'differs';
/** `confirmed`: enough others said the same; `unknown`: not yet (it waits); `contradicted`: another differs. */
export type Confirmation = 'confirmed' | 'unknown' | 'contradicted';

/** Endpoints that must agree when `confirmations.endpoints` is not configured: two where two exist. */
export const defaultQuorum = (endpoints: number): number => Math.min(2, Math.max(1, endpoints));

export function createUpstreamPool<E extends EndpointSpec>(options: PoolOptions<E>) {
  const alpha = options.ewmaAlpha ?? 0.3;
  const aheadBy = options.aheadBy ?? 10 * options.behindBy;
  const headIntervalMs = options.headIntervalMs ?? 1;
  const quorum = Math.min(options.endpoints.length, Math.max(1, options.quorum ?? defaultQuorum(options.endpoints.length)));
  /** The newest head `quorum` believable endpoints reached, and when it was first seen. */
  let anchor: { head: number; at: number } | undefined;
  /** First sightings of believable heads, to date the anchor. */
  const sightings = createHeadWatch();
  /**
   * The highest head each endpoint ever reported within the wall clock, and when: what it vouches
   * for. An endpoint that falls back (a node restarted from a snapshot) still vouches for the
   * others' heads having grown since, so they do not turn suspect next to it.
   */
  const peaks = new Map<Member<E>, { head: number; at: number }>();
  const labels = new Set<string>();
  const members: Member<E>[] = options.endpoints.map((spec, i) => {
    let label = redactUrl(spec.url);
    // Two endpoints of one provider differ only in their key: tell them apart by position.
    if (labels.has(label)) label = `${label}#${i + 1}`;
    labels.add(label);
    return { spec, label, health: { label, weight: spec.weight, failures: 0, restUntil: 0, throttled: false, requests: 0 } };
  });

  const believable = (): Member<E>[] => members.filter((m) => m.health.head !== undefined && m.health.suspect === undefined);
  const newestHead = (): number | undefined => {
    let best: number | undefined;
    for (const m of believable()) if (best === undefined || m.health.head! > best) best = m.health.head;
    return best;
  };
  /** The `quorum`-th newest believable head (or the lowest, when fewer are believable), and whose it is. */
  const agreed = (): Member<E> | undefined => {
    const heads = believable().sort((a, b) => b.health.head! - a.health.head!);
    return heads.length === 0 ? undefined : heads[Math.min(quorum, heads.length) - 1];
  };
  /** A head at most this high is plausible next to `ref`, seen at `at`: the chain grew at most one head per headIntervalMs since. */
  const bound = (ref: number, at: number, now: number): number => ref + Math.max(0, now - at) / headIntervalMs + aheadBy;

  /**
   * Re-judges every endpoint's head after one changed: against the anchor and the highest head
   * every other endpoint reported within the wall clock. Then the anchor moves to the agreed head,
   * but only on the word of more than one endpoint where more than one is configured (which of two
   * first answers must not decide whom to believe).
   */
  function judge(now: number): void {
    for (const m of members) {
      const h = m.health;
      if (h.head === undefined) continue;
      if (h.headTime !== undefined && h.headTime > now + CLOCK_SKEW_MS) {
        h.suspect = 'block time beyond the wall clock';
        continue;
      }
      const refs: number[] = [];
      if (anchor) refs.push(bound(anchor.head, anchor.at, now));
      for (const other of members) {
        const peak = peaks.get(other);
        if (other !== m && peak) refs.push(bound(peak.head, peak.at, now));
      }
      if (refs.length === 0 || h.head <= Math.max(...refs)) delete h.suspect;
      else h.suspect = `head ${h.head} far ahead of the other endpoints`;
    }
    const voices = believable();
    for (const m of voices) sightings.observe(m.health.head!, m.health.headAt!);
    if (members.length > 1 && voices.length < 2) return;
    const a = agreed();
    if (a && (anchor === undefined || a.health.head! > anchor.head)) anchor = { head: a.health.head!, at: sightings.asOf(a.health.head!) ?? now };
  }

  const behind = (m: Member<E>, newest: number | undefined): boolean => newest !== undefined && m.health.head !== undefined && newest - m.health.head > options.behindBy;
  /** 0: at the newest believable head (or not measured yet); 1: trailing it; 2: suspect. */
  const tier = (m: Member<E>, newest: number | undefined): number => (m.health.suspect !== undefined ? 2 : behind(m, newest) ? 1 : 0);
  /** Lower is better: latency over weight; an endpoint never measured counts as fast so that it gets measured. */
  const score = (m: Member<E>): number => (m.health.latencyMs ?? 0) / m.spec.weight;

  function rest(m: Member<E>, ms: number, throttled: boolean): void {
    const now = options.clock.now();
    m.health.restUntil = Math.max(m.health.restUntil, now + ms);
    m.health.throttled = throttled;
  }

  return {
    members,

    /**
     * Every endpoint, best first: those not resting, at the newest believable head before those
     * trailing it before suspect ones, by score; then the resting ones by the end of their rest. A caller tries them in turn and stops at the first
     * that serves: a failing endpoint is retried only when its rest is over or nothing else answers.
     */
    order(): Member<E>[] {
      const now = options.clock.now();
      const newest = newestHead();
      const ready = members.filter((m) => m.health.restUntil <= now);
      const resting = members.filter((m) => m.health.restUntil > now);
      ready.sort((a, b) => tier(a, newest) - tier(b, newest) || score(a) - score(b) || members.indexOf(a) - members.indexOf(b));
      resting.sort((a, b) => a.health.restUntil - b.health.restUntil);
      return [...ready, ...resting];
    },

    /** Endpoints not resting now. */
    ready(): Member<E>[] {
      const now = options.clock.now();
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
      options.metrics?.upstreamRequest(m.label, 'ok');
    },

    /** A call to `m` failed: it rests for the wait it asked for (throttled) or a growing backoff. */
    failed(m: Member<E>, fault: Fault, error: unknown): void {
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
    },

    /**
     * Runs one request against `m`, recording how it went. `classify` reads a failure;
     * an abort (shutdown) is not the endpoint's fault and records nothing.
     */
    async attempt<T>(m: Member<E>, signal: AbortSignal, call: () => Promise<T>, classify: (err: unknown) => Fault): Promise<T> {
      const started = options.clock.now();
      try {
        const out = await call();
        this.succeeded(m, Math.max(0, options.clock.now() - started));
        return out;
      } catch (err) {
        if (!signal.aborted) this.failed(m, classify(err), err);
        throw err;
      }
    },

    /**
     * The head `m` reported now, with its block time (ms) where the chain gives one; returns the
     * newest believable head. Whether `m`'s head is believed: `believed(m)`.
     */
    observeHead(m: Member<E>, head: number, blockTime?: number): number | undefined {
      const now = options.clock.now();
      m.health.head = head;
      m.health.headAt = now;
      if (blockTime === undefined) delete m.health.headTime;
      else m.health.headTime = blockTime;
      const peak = peaks.get(m);
      const withinClock = blockTime === undefined || blockTime <= now + CLOCK_SKEW_MS;
      if (withinClock && (peak === undefined || head > peak.head)) peaks.set(m, { head, at: now });
      judge(now);
      return newestHead();
    },

    /** Whether `m`'s last head is believed (not suspect). */
    believed: (m: Member<E>): boolean => m.health.head !== undefined && m.health.suspect === undefined,

    /**
     * The head the endpoints agree on: the `quorum`-th newest believable head (the lowest when
     * fewer are believable), with its block time where known. A cursor never passes it.
     */
    agreedHead(): { head: number; time?: number } | undefined {
      const a = agreed();
      return a && { head: a.health.head!, ...(a.health.headTime !== undefined ? { time: a.health.headTime } : {}) };
    },

    /** Endpoints that must agree before money moves (confirmations.endpoints). */
    quorum,

    /**
     * Asks endpoints other than `served`, in `order()`, about one transaction until `quorum - 1`
     * of them say the same: `confirmed`; any that differs: `contradicted`; else `unknown` (not yet
     * known elsewhere: the caller waits). A failed question counts as not knowing. A suspect
     * endpoint is asked too: its head is not believed, but agreeing with what another endpoint
     * served adds nothing false. With a quorum of 1 nothing is asked.
     */
    async confirm(served: Member<E>, ask: (m: Member<E>) => Promise<Verdict>): Promise<Confirmation> {
      let same = 0;
      if (quorum <= 1) return 'confirmed';
      for (const m of this.order()) {
        if (m === served) continue;
        let verdict: Verdict;
        try {
          verdict = await ask(m);
        } catch {
          verdict = 'unknown';
        }
        if (verdict === 'differs') return 'contradicted';
        if (verdict === 'same' && ++same >= quorum - 1) return 'confirmed';
      }
      return 'unknown';
    },

    /** A provider's own count of what is left (a rate-limit header). */
    observeQuota(m: Member<E>, quota: string): void {
      m.health.quota = quota.slice(0, 100);
    },

    newestHead,
    /** Whether `m` trails the newest believable head by more than `behindBy`. */
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
