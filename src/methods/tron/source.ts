/**
 * A TRC20 token's payments seen through TronGrid's account listing. One listing per
 * cycle for the receiving address; every fault is thrown to runLoop, which backs off.
 *
 * Decisions (defaults in defaultTuning):
 * - First start without a checkpoint reads the last 24 h (`backfillHours` if the
 *   config ever carries it), like the mailbox source; that start is saved at once.
 * - Each listing re-reads 5 min before the newest handled block time, more than
 *   TRON's ~1 min to solidify plus TronGrid's indexing lag; re-read ids are skipped.
 * - With no open intent the listing is skipped once caught up, but still runs every
 *   5 min so a stray payment is recorded as unmatched for the operator.
 */
import { fetch as undiciFetch } from 'undici';
import { endpointsSummary, type DoctorResult, type PaymentSource, type SourceDeps } from '../source.ts';
import { runLoop } from '../../runtime/loop.ts';
import { toBase58 } from './address.ts';
import { createUpstreamPool } from '../upstream-pool.ts';
import { callUrl } from '../endpoints.ts';
import { createTronGridClient, type Fetch } from './client.ts';
import { checkTronEndpoint } from './doctor.ts';
import { createTronPoller } from './poller.ts';
import type { PollerTuning, TronEndpoint } from './tuning.ts';
import { tronEndpoints, type TronSection } from './config.ts';
import type { TronAsset } from './tokens.ts';

/** A token's resolved section (`methods.USDT_TRC20`); `backfillHours` is read if the schema ever offers it. */
export type TronSourceConfig = TronSection & { backfillHours?: number };

export interface TronTuning extends PollerTuning {
  /** Per-request wall-clock limit, ms. */
  timeoutMs: number;
  backoff: { baseMs: number; maxMs: number };
}

export type TronSourceDeps = SourceDeps & { fetch?: Fetch; tuning?: Partial<TronTuning> };

/** A PaymentSource that also exposes one polling cycle (tests, one-shot tools). */
export interface TronSource extends PaymentSource {
  tick(signal: AbortSignal): Promise<void>;
}

const HOUR = 3_600_000;

export function defaultTuning(config: TronSourceConfig): TronTuning {
  const pollMs = config.pollSeconds * 1000;
  return {
    lookbackMs: (config.backfillHours ?? 24) * HOUR,
    overlapMs: 5 * 60_000,
    idleSweepMs: 5 * 60_000,
    pageLimit: 200,
    maxPagesPerTick: 50,
    rescanMs: config.rescanSeconds * 1000,
    rescanWindowMs: config.rescanHours * HOUR,
    unconfirmedMs: config.unconfirmedMinutes * 60_000,
    // TronGrid without a key: allowed_rps(1) per method per IP, zero burst (test/fixtures/chains/REAL-UPSTREAMS.md §1.3).
    // Applies per endpoint, to those without a key.
    minRequestIntervalMs: 1000,
    timeoutMs: 15_000,
    backoff: { baseMs: Math.max(1000, pollMs), maxMs: 120_000 },
  };
}

export function createTronSource(asset: TronAsset, config: TronSourceConfig, deps: TronSourceDeps): TronSource {
  const address = toBase58(config.address);
  const contract = toBase58(config.contract);
  if (!address || !contract) throw new TypeError(`${asset.method} address and contract must be TRON addresses`);
  const tuning: TronTuning = { ...defaultTuning(config), ...deps.tuning };
  const name = `tron:${address}`;
  const log = deps.log.child({ source: name });
  const endpoints: TronEndpoint[] = tronEndpoints(config).map((e) => {
    const placeholder = e.url.includes('{apiKey}');
    return {
      ...e,
      client: createTronGridClient({
        apiUrl: callUrl(e),
        // A key in the URL ({apiKey}) is the provider's way; TronGrid's is its header.
        apiKey: placeholder ? undefined : e.apiKey,
        fetch: deps.fetch ?? undiciFetch,
        timeoutMs: tuning.timeoutMs,
        now: () => deps.clock.now(),
        onQuota: (q) => pool.observeQuota(pool.members[endpointIndex.get(e.url)!]!, q),
      }),
      minRequestIntervalMs: e.apiKey !== undefined ? 0 : tuning.minRequestIntervalMs,
    };
  });
  const endpointIndex = new Map(endpoints.map((e, i) => [e.url, i]));
  const pool = createUpstreamPool({
    endpoints,
    clock: deps.clock,
    random: deps.random,
    backoff: tuning.backoff,
    // TRON makes a block every 3 s: 3 blocks behind the newest believable head, an endpoint is asked
    // after those at it; 20 blocks (a minute) beyond what the others make plausible, it is suspect.
    behindBy: 3,
    aheadBy: 20,
    headIntervalMs: 2500,
    quorum: config.confirmations?.endpoints,
    metrics: deps.upstreamMetrics,
  });
  const poller = createTronPoller({ asset, address, contract, ledger: deps.ledger, clock: deps.clock, log, pool, tuning });

  return {
    name,
    tick: poller.tick,
    run: (signal) =>
      runLoop({ name, intervalMs: config.pollSeconds * 1000, tick: poller.tick, signal, log, random: deps.random, backoff: tuning.backoff }),

    /** Every endpoint, one line each; the method is usable when one of them is. */
    async check(signal): Promise<DoctorResult> {
      const lines = await Promise.all(pool.members.map((m) => checkTronEndpoint(m, { address, contract, decimals: asset.decimals, signal, clock: deps.clock })));
      return endpointsSummary('TronGrid', lines, pool.members.map((m) => m.label));
    },
  };
}
