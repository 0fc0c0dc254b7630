/**
 * USDT (TRC20) payments seen through TronGrid's account listing. One listing per
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
import type { DoctorResult, PaymentSource, SourceDeps } from '../source.ts';
import { describeError, runLoop } from '../../workers/loop.ts';
import { toBase58 } from './address.ts';
import { createTronGridClient, TronGridError, type Fetch } from './client.ts';
import { createTronPoller, type PollerTuning } from './poller.ts';
import { parseTrc20Page, Trc20FormatError } from './trc20-page.ts';
import type { TronSection } from './config.ts';
import { USDT_TRC20_DECIMALS } from './units.ts';

/** The resolved `methods.USDT_TRC20` section; `backfillHours` is read if the schema ever offers it. */
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
    // TronGrid without a key: allowed_rps(1) per method per IP, zero burst (REAL-UPSTREAMS.md §1.3).
    minRequestIntervalMs: config.apiKey ? 0 : 1000,
    timeoutMs: 15_000,
    backoff: { baseMs: Math.max(1000, pollMs), maxMs: 120_000 },
  };
}

export function createTronSource(config: TronSourceConfig, deps: TronSourceDeps): TronSource {
  const address = toBase58(config.address);
  const contract = toBase58(config.contract);
  if (!address || !contract) throw new TypeError('USDT_TRC20 address and contract must be TRON addresses');
  const tuning: TronTuning = { ...defaultTuning(config), ...deps.tuning };
  const name = `tron:${address}`;
  const log = deps.log.child({ source: name });
  const client = createTronGridClient({
    apiUrl: config.apiUrl,
    apiKey: config.apiKey?.reveal(),
    fetch: deps.fetch ?? undiciFetch,
    timeoutMs: tuning.timeoutMs,
    now: () => deps.clock.now(),
  });
  const poller = createTronPoller({ address, contract, ledger: deps.ledger, clock: deps.clock, log, client, tuning });

  return {
    name,
    tick: poller.tick,
    run: (signal) =>
      runLoop({ name, intervalMs: config.pollSeconds * 1000, tick: poller.tick, signal, log, random: deps.random, backoff: tuning.backoff }),

    async check(signal): Promise<DoctorResult> {
      try {
        const body = await client.listTrc20({ address, contract, limit: 1 }, signal);
        parseTrc20Page(body, { receiver: address, contract, decimals: USDT_TRC20_DECIMALS });
        const key = config.apiKey ? 'API key accepted' : 'no API key set (TronGrid\'s anonymous rate limit applies)';
        return { ok: true, message: `TronGrid reachable at ${config.apiUrl}; ${key}` };
      } catch (err) {
        if (err instanceof TronGridError && err.fault === 'rate_limited') return rateLimited(err, config.apiUrl, Boolean(config.apiKey));
        return { ok: false, message: doctorMessage(err, config.apiUrl, Boolean(config.apiKey)) };
      }
    },
  };
}

/** A rate limit is not a key problem: TronGrid answered, and the key (if any) was not what it refused. */
function rateLimited(err: TronGridError, apiUrl: string, hasKey: boolean): DoctorResult {
  const said = err.said ? `: ${err.said}` : '';
  const key = hasKey ? 'the API key was not rejected' : "no API key set; one raises TronGrid's anonymous limit of 1 request per second";
  return { ok: true, message: `TronGrid reachable at ${apiUrl}, but rate-limiting right now (HTTP ${err.status}${said}); ${key}` };
}

function doctorMessage(err: unknown, apiUrl: string, hasKey: boolean): string {
  if (err instanceof TronGridError && err.fault === 'key_rejected') {
    const said = err.said ? `: ${err.said}` : '';
    return hasKey
      ? `TronGrid rejected the API key (HTTP ${err.status}${said}); check methods.USDT_TRC20.apiKey`
      : `TronGrid refused access without an API key (HTTP ${err.status}${said}); set methods.USDT_TRC20.apiKey`;
  }
  if (err instanceof Trc20FormatError) return `${apiUrl} does not answer like TronGrid: ${err.message}`;
  return `TronGrid at ${apiUrl} is not usable: ${describeError(err)}`;
}
