/**
 * Every request the TRON poller sends an endpoint (its solidified head, a page of the receiving
 * address's listing): paced by the endpoint's own minimum interval and the wait a throttled one
 * named, and recorded in its health by the pool.
 */
import type { Clock } from '../../domain/ports.ts';
import { sleep } from '../../runtime/sleep.ts';
import type { UpstreamPool } from '../upstream-pool.ts';
import type { Fault, Member } from '../upstream-health.ts';
import { TronGridError } from './client.ts';
import type { TronEndpoint } from './tuning.ts';

export interface RequestsDeps {
  pool: UpstreamPool<TronEndpoint>;
  clock: Clock;
  address: string;
  contract: string;
  pageLimit: number;
}

/** What a TronGrid fault says about the endpoint: a rate limit rests it for the wait it named. */
function classifyTron(err: unknown): Fault {
  if (err instanceof TronGridError && err.fault === 'rate_limited') return { kind: 'throttled', retryAfterMs: err.retryAfterMs };
  return { kind: 'error' };
}

export function createTronRequests(deps: RequestsDeps) {
  /** When each endpoint was last sent a request (ms), for pacing. */
  const lastRequestAt = new Map<Member<TronEndpoint>, number>();

  /** One request to `m`, paced, after the wait it last asked for, recorded in its health. */
  async function paced<T>(m: Member<TronEndpoint>, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    const last = lastRequestAt.get(m);
    const due = last === undefined ? 0 : last + m.spec.minRequestIntervalMs;
    // A throttled endpoint is asked again only after the wait it named (TronGrid: "suspended for N s").
    const wait = Math.max(m.health.throttled ? m.health.restUntil : 0, due) - deps.clock.now();
    if (wait > 0) await sleep(wait, signal);
    if (signal.aborted) throw signal.reason ?? new Error('aborted');
    lastRequestAt.set(m, deps.clock.now());
    return deps.pool.attempt(m, signal, call, classifyTron);
  }

  return {
    solidifiedHead: (m: Member<TronEndpoint>, signal: AbortSignal) => paced(m, signal, () => m.spec.client.solidifiedHead(signal)),
    /** One page of the receiving address's TRC20 listing on `m`. */
    listPage: (m: Member<TronEndpoint>, signal: AbortSignal, q: { minTimestamp: number; maxTimestamp?: number; fingerprint?: string }) =>
      paced(m, signal, () => m.spec.client.listTrc20({ address: deps.address, contract: deps.contract, limit: deps.pageLimit, ...q }, signal)),
  };
}

export type TronRequests = ReturnType<typeof createTronRequests>;
