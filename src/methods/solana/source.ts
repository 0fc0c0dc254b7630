/**
 * The Solana payment source for one asset: native SOL (the wallet) or an SPL token
 * (the wallet's ATA for the section's mint). Each cycle lists the account's signatures since the checkpoint (last
 * processed signature, key `solana:<method>:<account>`) and reads each transaction
 * oldest first at the configured commitment; cost depends on new transactions, never
 * on open intents. First start (no checkpoint): only the newest page, and within it
 * only the last 24 h, so enabling a method on an old wallet does not replay history.
 * A wsUrl adds a logs subscription that only wakes the poll early.
 */
import type { Connection } from '@solana/web3.js';
import { solanaEndpoints, type SolanaSection } from './config.ts';
import { createUpstreamPool } from '../upstream-pool.ts';
import { callUrl } from '../endpoints.ts';
import type { Member } from '../upstream-health.ts';
import { isSolanaAddress } from '../../config/addresses.ts';
import { endpointsSummary, type DoctorResult, type PaymentSource, type SourceDeps } from '../source.ts';
import { describeError } from '../../domain/errors.ts';
import { runLoop } from '../../runtime/loop.ts';
import { WakeSignal } from '../../runtime/wake.ts';
import { associatedTokenAddress, MintError, mintProgram, TOKEN_2022_PROGRAM_ID } from './accounts.ts';
import type { WatchTarget } from './adapt.ts';
import type { SolanaAsset } from './tokens.ts';
import { createPoller } from './poller.ts';
import { historyCommitment, openConnection, readExchange, type ConnectionFactory, type SolanaEndpoint } from './rpc.ts';
import { subscribeWake } from './subscribe.ts';

export interface SolanaSourceOptions {
  connectionFactory?: ConnectionFactory;
  fetch?: typeof globalThis.fetch;
  /** Per RPC request, ms (web3.js has no timeout of its own). Default 15 s. */
  requestTimeoutMs?: number;
  /** getSignaturesForAddress page size. Default 1000 (the RPC maximum). */
  pageLimit?: number;
  /** With no checkpoint yet, only transactions of the last 24 h (default) on the newest page are examined, ms. */
  firstStartLookbackMs?: number;
  /** With no open intent, scan at most once a minute (default), ms. */
  idleScanMs?: number;
  backoff?: { baseMs: number; maxMs: number };
  /** How long a cycle waits for every endpoint's slot before listing on one that answered, ms. Default 2 s. */
  headWaitMs?: number;
  /** The deep re-scan's period, ms. Default the section's rescanSeconds. */
  rescanMs?: number;
}

export type SolanaDeps = SourceDeps & SolanaSourceOptions;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** `config` is the asset's resolved section (secrets read); a token's carries its `mint`. */
export function createSolanaSource(asset: SolanaAsset, config: SolanaSection, deps: SolanaDeps): PaymentSource {
  const name = `solana:${asset.method}:${config.wallet}`;
  const log = deps.log.child({ source: name });
  const commitment = historyCommitment(config.commitment);
  const specs = solanaEndpoints(config);
  /** The pool lives as long as the source, so health survives a restart of run(). */
  const pool = createUpstreamPool<SolanaEndpoint>({
    endpoints: specs.map((e) => ({ ...e, conn: undefined as unknown as Connection })),
    clock: deps.clock,
    random: deps.random,
    backoff: deps.backoff ?? { baseMs: 1000, maxMs: 60_000 },
    // A slot is about 400 ms: 10 slots (4 s) behind the newest believable slot, an endpoint is asked
    // after those at it (one frozen a few slots back stops serving); 150 slots (a minute) beyond what
    // the others make plausible, it is suspect.
    behindBy: 10,
    aheadBy: 150,
    headIntervalMs: 350,
    quorum: config.confirmations?.endpoints,
    metrics: deps.upstreamMetrics,
  });
  /** A Connection per endpoint whose every HTTP answer feeds that endpoint's health. Only the first carries the wsUrl. */
  const connect = (m: Member<SolanaEndpoint>, signal: AbortSignal, i: number): Connection =>
    openConnection(
      {
        rpcUrl: callUrl(m.spec),
        wsUrl: i === 0 ? config.wsUrl : null,
        requestTimeoutMs: deps.requestTimeoutMs ?? 15_000,
        fetch: deps.fetch,
        connectionFactory: deps.connectionFactory,
        observe: (r) => {
          const read = readExchange(r, deps.clock.now());
          if (read.kind === 'ok') pool.succeeded(m, r.ms);
          else pool.failed(m, read.kind === 'throttled' ? { kind: 'throttled', retryAfterMs: read.retryAfterMs } : { kind: 'error' }, new Error(read.error));
          if ('headers' in r) {
            const quota = r.headers.get('x-ratelimit-remaining') ?? r.headers.get('x-rate-limit-remaining');
            if (quota !== null) pool.observeQuota(m, quota);
          }
        },
      },
      signal,
    );

  /** Checked on use, so that `payd doctor` can report a bad key instead of crashing. */
  const keys = (): { wallet: string; mint?: string } => {
    if (!isSolanaAddress(config.wallet)) throw new Error(`wallet ${config.wallet} is not a valid Solana public key`);
    if (asset.kind === 'native') return { wallet: config.wallet };
    const mint = config.mint;
    if (mint === undefined || !isSolanaAddress(mint)) throw new Error(`mint ${mint} is not a valid Solana public key`);
    return { wallet: config.wallet, mint };
  };

  /**
   * What to watch. For a token, the ATA's seeds name the program that owns the mint
   * (classic Token or Token-2022), so the mint's owner is read from the chain, once.
   */
  async function resolveTarget(conn: Connection): Promise<WatchTarget> {
    const { wallet, mint } = keys();
    if (mint === undefined) return { kind: 'native', method: asset.method, decimals: asset.decimals, wallet, account: wallet };
    const program = await mintProgram(conn, mint, commitment);
    return { kind: 'spl', method: asset.method, decimals: asset.decimals, wallet, account: associatedTokenAddress(wallet, mint, program), mint, tokenProgram: program };
  }

  /** The target, read from the first endpoint that answers (a bad mint is the same on all of them). */
  async function resolveOnAny(signal: AbortSignal): Promise<WatchTarget> {
    let last: unknown;
    for (const m of pool.order()) {
      if (signal.aborted) break;
      try {
        return await resolveTarget(m.spec.conn);
      } catch (err) {
        if (err instanceof MintError) throw err;
        last = err;
      }
    }
    throw last ?? new Error('aborted');
  }

  async function run(signal: AbortSignal): Promise<void> {
    keys(); // a bad key is a configuration error, not an upstream fault
    pool.members.forEach((m, i) => Object.assign(m.spec, { conn: connect(m, signal, i) }));
    const conn = pool.members[0]!.spec.conn;
    let poller: ReturnType<typeof createPoller> | undefined;
    let unsubscribe: (() => Promise<void>) | undefined;
    // The first tick resolves the target; an RPC fault there backs off and retries like any other.
    const tick = async (s: AbortSignal): Promise<void> => {
      if (!poller) {
        const watch = await resolveOnAny(s);
        poller = createPoller({
          pool,
          headWaitMs: deps.headWaitMs,
          target: watch,
          commitment,
          ledger: deps.ledger,
          clock: deps.clock,
          log,
          pageLimit: Math.min(1000, Math.max(1, deps.pageLimit ?? 1000)),
          maxPages: 100,
          firstStartLookbackMs: deps.firstStartLookbackMs ?? DAY_MS,
          idleScanMs: deps.idleScanMs ?? 60_000,
          maxUnavailableCycles: 30,
          rescan: { everyMs: deps.rescanMs ?? config.rescanSeconds * 1000, windowMs: config.rescanHours * HOUR_MS },
        });
        unsubscribe = config.wsUrl ? subscribeWake(conn, watch.account, commitment, wake, log) : undefined;
        log.info('solana source started', { account: watch.account, commitment, push: Boolean(config.wsUrl), ...(watch.kind === 'spl' ? { token_program: watch.tokenProgram } : {}) });
      }
      await poller.tick(s);
    };
    const wake = new WakeSignal();
    try {
      await runLoop({ name, intervalMs: config.pollSeconds * 1000, tick, signal, log, random: deps.random, backoff: deps.backoff, wake });
    } finally {
      await unsubscribe?.();
    }
  }

  /** One endpoint: version, slot at the commitment, the account watched, its quota; or what is wrong. */
  async function checkOne(m: Member<SolanaEndpoint>, i: number, signal: AbortSignal): Promise<DoctorResult> {
    try {
      const conn: Connection = connect(m, signal, i);
      const version = await conn.getVersion();
      const slot = await conn.getSlot(commitment);
      const watch = await resolveTarget(conn);
      const account =
        watch.kind === 'spl'
          ? `token account ${watch.account} (mint ${watch.mint}, ${watch.tokenProgram === TOKEN_2022_PROGRAM_ID.toBase58() ? 'Token-2022' : 'SPL Token'} program)`
          : `wallet ${watch.account}`;
      const latency = m.health.latencyMs === undefined ? '' : ` in ${Math.round(m.health.latencyMs)} ms`;
      const quota = m.health.quota !== undefined ? `; quota left: ${m.health.quota}` : '';
      return { ok: true, message: `RPC ${m.label} answers${latency} (solana-core ${version['solana-core']}, ${commitment} slot ${slot}); watching ${account}${quota}` };
    } catch (err) {
      if (err instanceof MintError) return { ok: false, message: err.message };
      return { ok: false, message: `RPC ${m.label} unreachable: ${describeError(err)}` };
    }
  }

  async function check(signal: AbortSignal): Promise<DoctorResult> {
    try {
      keys();
    } catch (err) {
      return { ok: false, message: describeError(err) };
    }
    const lines = await Promise.all(pool.members.map((m, i) => checkOne(m, i, signal)));
    return endpointsSummary('RPC', lines, pool.members.map((m) => m.label));
  }

  return { name, run, check };
}
