/**
 * The Solana payment source for SOL (the wallet) and USDT_SOL (the wallet's ATA for
 * the mint). Each cycle lists the account's signatures since the checkpoint (last
 * processed signature, key `solana:<method>:<account>`) and reads each transaction
 * oldest first at the configured commitment; cost depends on new transactions, never
 * on open intents. First start (no checkpoint): only the newest page, and within it
 * only the last 24 h, so enabling a method on an old wallet does not replay history.
 * A wsUrl adds a logs subscription that only wakes the poll early.
 */
import type { Connection } from '@solana/web3.js';
import type { SolMethodConfig, UsdtSolMethodConfig } from './config.ts';
import { isSolanaAddress } from '../../config/addresses.ts';
import type { DoctorResult, PaymentSource, SourceDeps } from '../source.ts';
import { describeError, runLoop, WakeSignal } from '../../workers/loop.ts';
import { associatedTokenAddress, MintError, mintProgram, TOKEN_2022_PROGRAM_ID } from './accounts.ts';
import type { WatchTarget } from './adapt.ts';
import { createPoller } from './poller.ts';
import { historyCommitment, openConnection, type ConnectionFactory } from './rpc.ts';
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
}

export type SolanaDeps = SourceDeps & SolanaSourceOptions;

const DAY_MS = 86_400_000;

/** Providers put API keys in the path or query; doctor output shows only the origin. */
const origin = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return 'the configured RPC';
  }
};

export function createSolanaSource(method: 'SOL', config: SolMethodConfig, deps: SolanaDeps): PaymentSource;
export function createSolanaSource(method: 'USDT_SOL', config: UsdtSolMethodConfig, deps: SolanaDeps): PaymentSource;
export function createSolanaSource(method: 'SOL' | 'USDT_SOL', config: SolMethodConfig | UsdtSolMethodConfig, deps: SolanaDeps): PaymentSource {
  const name = `solana:${method}:${config.wallet}`;
  const log = deps.log.child({ source: name });
  const commitment = historyCommitment(config.commitment);
  const rpc = { rpcUrl: config.rpcUrl, wsUrl: config.wsUrl, requestTimeoutMs: deps.requestTimeoutMs ?? 15_000, fetch: deps.fetch, connectionFactory: deps.connectionFactory };

  /** Checked on use, so that `payd doctor` can report a bad key instead of crashing. */
  const keys = (): { wallet: string; mint?: string } => {
    if (!isSolanaAddress(config.wallet)) throw new Error(`wallet ${config.wallet} is not a valid Solana public key`);
    if (method === 'SOL') return { wallet: config.wallet };
    const mint = (config as UsdtSolMethodConfig).mint;
    if (!isSolanaAddress(mint)) throw new Error(`mint ${mint} is not a valid Solana public key`);
    return { wallet: config.wallet, mint };
  };

  /**
   * What to watch. For a token, the ATA's seeds name the program that owns the mint
   * (classic Token or Token-2022), so the mint's owner is read from the chain, once.
   */
  async function resolveTarget(conn: Connection): Promise<WatchTarget> {
    const { wallet, mint } = keys();
    if (method === 'SOL' || mint === undefined) return { method: 'SOL', wallet, account: wallet };
    const program = await mintProgram(conn, mint, commitment);
    return { method: 'USDT_SOL', wallet, account: associatedTokenAddress(wallet, mint, program), mint, tokenProgram: program };
  }

  async function run(signal: AbortSignal): Promise<void> {
    keys(); // a bad key is a configuration error, not an upstream fault
    const conn = openConnection(rpc, signal);
    let poller: ReturnType<typeof createPoller> | undefined;
    let unsubscribe: (() => Promise<void>) | undefined;
    // The first tick resolves the target; an RPC fault there backs off and retries like any other.
    const tick = async (s: AbortSignal): Promise<void> => {
      if (!poller) {
        const watch = await resolveTarget(conn);
        poller = createPoller(conn, {
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
        });
        unsubscribe = config.wsUrl ? subscribeWake(conn, watch.account, commitment, wake, log) : undefined;
        log.info('solana source started', { account: watch.account, commitment, push: Boolean(config.wsUrl), ...(watch.method === 'USDT_SOL' ? { token_program: watch.tokenProgram } : {}) });
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

  async function check(signal: AbortSignal): Promise<DoctorResult> {
    try {
      keys();
    } catch (err) {
      return { ok: false, message: describeError(err) };
    }
    try {
      const conn: Connection = openConnection(rpc, signal);
      const version = await conn.getVersion();
      const slot = await conn.getSlot(commitment);
      const watch = await resolveTarget(conn);
      const account =
        watch.method === 'USDT_SOL'
          ? `token account ${watch.account} (mint ${watch.mint}, ${watch.tokenProgram === TOKEN_2022_PROGRAM_ID.toBase58() ? 'Token-2022' : 'SPL Token'} program)`
          : `wallet ${watch.account}`;
      return { ok: true, message: `RPC ${origin(config.rpcUrl)} answers (solana-core ${version['solana-core']}, ${commitment} slot ${slot}); watching ${account}` };
    } catch (err) {
      if (err instanceof MintError) return { ok: false, message: err.message };
      return { ok: false, message: `RPC ${origin(config.rpcUrl)} unreachable: ${describeError(err)}` };
    }
  }

  return { name, run, check };
}
