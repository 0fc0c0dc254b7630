/**
 * The EVM payment source of one currency (`<TOKEN>_<CHAIN>`). The currencies of one chain share
 * one scan (scan.ts) and its endpoints: each source's poll runs that scan, or waits for the one
 * running, so one `eth_getLogs` per poll covers every token of the chain. viem loads with this file.
 */
import { endpointsSummary, type DoctorResult, type PaymentSource, type SourceDeps } from '../source.ts';
import type { Ledger } from '../../domain/ports.ts';
import { describeError } from '../../domain/errors.ts';
import { cycleReporterOf } from '../../runtime/cycle.ts';
import { runLoop } from '../../runtime/loop.ts';
import { WakeSignal } from '../../runtime/wake.ts';
import { createUpstreamPool, type UpstreamPool } from '../upstream-pool.ts';
import { callUrl, endpointsOf, type EndpointSpec } from '../endpoints.ts';
import { checksumAddress, normalizeEvmAddress } from './address.ts';
import type { EvmCurrency } from './chains.ts';
import type { EvmSection } from './config.ts';
import { createEvmRpc, type EvmEndpoint } from './rpc.ts';
import { TokenMismatch } from './final-heads.ts';
import { createChainScan, type TickResult } from './scan.ts';
import type { Watch } from './scan-options.ts';

export interface EvmSourceOptions {
  /** Per request, ms. Default 15 s. */
  timeoutMs?: number;
  backoff?: { baseMs: number; maxMs: number };
  /** getLogs calls per poll before the rest of a backlog waits for the next. Default 50. */
  maxRangesPerTick?: number;
}

export type EvmSourceDeps = SourceDeps & EvmSourceOptions;

export interface EvmSource extends PaymentSource {
  tick(signal: AbortSignal): Promise<void>;
}

/** One chain's scan, shared by the sources of its currencies within one app (one ledger). */
interface ChainHub {
  settings: string;
  currencies: string[];
  watches: Watch[];
  pool: UpstreamPool<EvmEndpoint>;
  scan?: ReturnType<typeof createChainScan>;
  running?: Promise<TickResult>;
  last?: { at: number; result: TickResult };
}

const hubs = new WeakMap<Ledger, Map<number, ChainHub>>();

/** The chain's endpoints: `endpoints`, else `rpcUrl`, else the chain's public one. */
const endpointSpecs = (c: EvmCurrency, s: EvmSection): EndpointSpec[] => endpointsOf(s, { url: s.rpcUrl, fallback: c.chain.defaultRpc });

/** What the currencies of one chain must agree on to share a scan. */
const chainSettings = (c: EvmCurrency, s: EvmSection): string =>
  JSON.stringify([endpointSpecs(c, s).map((e) => [e.url, e.weight]), s.chainId, s.confirmations?.endpoints ?? null, s.confirmations?.blocks ?? null, s.maxBlockRange ?? null, s.pollSeconds, s.backfillBlocks]);

export function createEvmSource(currency: EvmCurrency, section: EvmSection, deps: EvmSourceDeps): EvmSource {
  const receiver = checksumAddress(section.address);
  const name = `evm:${currency.id}:${receiver}`;
  const log = deps.log.child({ source: name });
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const backoff = deps.backoff ?? { baseMs: Math.max(1000, section.pollSeconds * 1000), maxMs: 120_000 };
  const intervalMs = section.pollSeconds * 1000;

  const perLedger = hubs.get(deps.ledger) ?? new Map<number, ChainHub>();
  hubs.set(deps.ledger, perLedger);
  const settings = chainSettings(currency, section);
  let hub = perLedger.get(section.chainId);
  if (hub && hub.settings !== settings) {
    throw new Error(`${currency.id} must list the same endpoints, chainId, confirmations, maxBlockRange, pollSeconds and backfillBlocks as ${hub.currencies.join(', ')}: the currencies of one chain share one scan`);
  }
  if (!hub) {
    const pool = createUpstreamPool<EvmEndpoint>({
      endpoints: endpointSpecs(currency, section),
      clock: deps.clock,
      random: deps.random,
      backoff,
      // A minute of blocks: further behind than the newest final block, an endpoint serves only when no other does.
      behindBy: Math.max(5, Math.ceil(60 / currency.chain.blockSeconds)),
      metrics: deps.upstreamMetrics,
      quorum: section.confirmations?.endpoints,
    });
    for (const m of pool.members) m.spec.rpc = createEvmRpc(callUrl(m.spec), timeoutMs);
    hub = { settings, currencies: [], watches: [], pool };
    perLedger.set(section.chainId, hub);
  }
  const shared = hub;
  // A source built again for the same currency (sources restarted) replaces its watch; the scan is rebuilt with the new list.
  shared.currencies = [...shared.currencies.filter((id) => id !== currency.id), currency.id];
  shared.watches = [...shared.watches.filter((w) => w.method !== currency.id), { method: currency.id, contract: normalizeEvmAddress(section.contract), recipient: normalizeEvmAddress(section.address), receiver, decimals: section.decimals }];
  shared.scan = undefined;

  const scan = () =>
    (shared.scan ??= createChainScan({
      chainId: section.chainId,
      watches: shared.watches,
      pool: shared.pool,
      ledger: deps.ledger,
      clock: deps.clock,
      log: deps.log.child({ source: `evm:${section.chainId}` }),
      ...(section.confirmations?.blocks !== undefined ? { confirmationBlocks: section.confirmations.blocks } : {}),
      fallbackDepth: currency.chain.finality.depth,
      logRange: section.maxBlockRange !== undefined ? Math.min(section.maxBlockRange, currency.chain.logRange) : currency.chain.logRange,
      ...(section.maxBlockRange !== undefined ? { maxBlockRange: section.maxBlockRange } : {}),
      backfillBlocks: section.backfillBlocks,
      maxRangesPerTick: deps.maxRangesPerTick ?? 50,
    }));

  const wake = new WakeSignal();

  /** Runs the chain's scan, joins the one running, or reuses one that finished within half a poll. */
  async function tick(signal: AbortSignal): Promise<void> {
    const now = deps.clock.now();
    let result: TickResult;
    if (shared.running) result = await shared.running;
    else if (shared.last && !shared.last.result.more && now - shared.last.at < intervalMs / 2) result = shared.last.result;
    else {
      shared.running = scan().tick(signal);
      try {
        result = await shared.running;
        shared.last = { at: deps.clock.now(), result };
      } finally {
        shared.running = undefined;
      }
    }
    if (result.caughtUpAsOf !== undefined) cycleReporterOf(signal)?.caughtUp?.(result.caughtUpAsOf);
    if (result.more) wake.wake(); // a backlog goes on at once
  }

  async function run(signal: AbortSignal): Promise<void> {
    await runLoop({ name, intervalMs, tick, signal, log, random: deps.random, backoff, wake });
  }

  /** Each endpoint: the chain it serves, the token's decimals, its final block. */
  async function check(signal: AbortSignal): Promise<DoctorResult> {
    const single = createChainScan({
      chainId: section.chainId,
      watches: shared.watches.filter((w) => w.method === currency.id),
      pool: shared.pool,
      ledger: deps.ledger,
      clock: deps.clock,
      log,
      ...(section.confirmations?.blocks !== undefined ? { confirmationBlocks: section.confirmations.blocks } : {}),
      fallbackDepth: currency.chain.finality.depth,
      logRange: 1,
      backfillBlocks: 0,
      maxRangesPerTick: 0,
    });
    const lines = await Promise.all(
      shared.pool.members.map(async (m): Promise<DoctorResult> => {
        try {
          const head = await single.finalHead(m, signal);
          const rule = section.confirmations?.blocks !== undefined ? `${section.confirmations.blocks} confirmations` : 'finalized';
          return { ok: true, message: `RPC ${m.label} serves ${currency.chain.network} (chain ${section.chainId}); final block ${head.number} (${rule}); ${currency.token.symbol} contract ${checksumAddress(section.contract)} has ${section.decimals} decimals` };
        } catch (err) {
          if (err instanceof TokenMismatch) return { ok: false, message: err.message };
          return { ok: false, message: `RPC ${m.label} unusable: ${describeError(err)}` };
        }
      }),
    );
    return endpointsSummary('RPC', lines, shared.pool.members.map((m) => m.label));
  }

  return { name, tick, run, check };
}
