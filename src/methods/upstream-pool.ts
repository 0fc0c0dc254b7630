/**
 * Several upstreams for one chain source (TronGrid-compatible APIs, Solana JSON-RPC endpoints,
 * EVM JSON-RPC endpoints), each with its own health (upstream-health.ts) and head
 * (upstream-heads.ts), and the order to try them in. No timers and no I/O: the source calls
 * `attempt` around each request and asks `order()` which endpoint to use next; the clock and
 * jitter are injected.
 *
 * No endpoint is believed on its own word (the contract every chain family follows): its head is
 * judged against the others' (upstream-heads.ts), and with `quorum` ≥ 2, a transaction moves
 * money only once `quorum - 1` other endpoints confirm it (`confirm`): one that none knows yet
 * waits, one another contradicts is not settled.
 * With one endpoint there is nothing to compare: payd trusts it entirely (the doctor says so).
 */
import { redactUrl, type EndpointSpec } from './endpoints.ts';
import { createHeadJudge, type HeadOptions } from './upstream-heads.ts';
import { createHealthRecorder, type HealthOptions, type Member } from './upstream-health.ts';

export interface PoolOptions<E extends EndpointSpec> extends HealthOptions, HeadOptions {
  endpoints: E[];
  /** Endpoints that must agree: the agreed head's rank and a settlement's confirmations. Default min(2, endpoints). */
  quorum?: number;
}

/** What another endpoint says about a transaction one endpoint served. */
export type Verdict = 'same' | 'unknown' | 'differs';
/** `confirmed`: enough others said the same; `unknown`: not yet (it waits); `contradicted`: another differs. */
export type Confirmation = 'confirmed' | 'unknown' | 'contradicted';

/** Endpoints that must agree when `confirmations.endpoints` is not configured: two where two exist. */
export const defaultQuorum = (endpoints: number): number => Math.min(2, Math.max(1, endpoints));

export function createUpstreamPool<E extends EndpointSpec>(options: PoolOptions<E>) {
  const quorum = Math.min(options.endpoints.length, Math.max(1, options.quorum ?? defaultQuorum(options.endpoints.length)));
  const labels = new Set<string>();
  const members: Member<E>[] = options.endpoints.map((spec, i) => {
    let label = redactUrl(spec.url);
    // Two endpoints of one provider differ only in their key: tell them apart by position.
    if (labels.has(label)) label = `${label}#${i + 1}`;
    labels.add(label);
    return { spec, label, health: { label, weight: spec.weight, failures: 0, restUntil: 0, throttled: false, requests: 0 } };
  });
  const health = createHealthRecorder<E>(options);
  const heads = createHeadJudge(members, quorum, options.clock, options);

  /** 0: at the newest believable head (or not measured yet); 1: trailing it; 2: suspect. */
  const tier = (m: Member<E>, newest: number | undefined): number => (m.health.suspect !== undefined ? 2 : heads.behind(m, newest) ? 1 : 0);
  /** Lower is better: latency over weight; an endpoint never measured counts as fast so that it gets measured. */
  const score = (m: Member<E>): number => (m.health.latencyMs ?? 0) / m.spec.weight;

  return {
    members,

    /**
     * Every endpoint, best first: those not resting, at the newest believable head before those
     * trailing it before suspect ones, by score; then the resting ones by the end of their rest. A caller tries them in turn and stops at the first
     * that serves: a failing endpoint is retried only when its rest is over or nothing else answers.
     */
    order(): Member<E>[] {
      const now = options.clock.now();
      const newest = heads.newestHead();
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

    succeeded: health.succeeded,
    failed: health.failed,
    attempt: health.attempt,
    observeHead: heads.observeHead,
    believed: heads.believed,
    agreedHead: heads.agreedHead,

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

    observeQuota: health.observeQuota,
    newestHead: heads.newestHead,
    isBehind: heads.isBehind,
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
