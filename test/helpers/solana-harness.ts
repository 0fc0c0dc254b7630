/** Runs the real Solana source (real web3.js Connection) against the fake RPC, for integration tests. */
import type { SolSection, SplSection } from '../../src/methods/solana/config.ts';
import { SOL_ASSET, SPL_TOKENS, splAsset, type SolanaAsset } from '../../src/methods/solana/tokens.ts';
import type { PaymentSource } from '../../src/methods/source.ts';
import { createSolanaSource, type SolanaSourceOptions } from '../../src/methods/solana/source.ts';
import { FakeLedger, recordingLogger, testClock, testRandom } from './solana-ledger.ts';
import type { FakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { USDT_MINT } from '../fakes/solana-tx.ts';

export const solConfig = (rpc: FakeSolanaRpc, wallet: string, more: Partial<SolSection> = {}): SolSection => ({
  wallet,
  rpcUrl: rpc.url,
  wsUrl: null,
  commitment: 'finalized',
  pollSeconds: 0.05,
  rescanSeconds: 600,
  rescanHours: 24,
  maxLagSeconds: 120,
  maxOffsetSteps: 100,
  ...more,
});

export const usdtConfig = (rpc: FakeSolanaRpc, wallet: string, more: Partial<SplSection> = {}): SplSection => ({
  ...solConfig(rpc, wallet),
  mint: USDT_MINT,
  ...more,
});

/** Fast backoff so fault tests stay short; every tick scans (the idle throttle has its own test). */
export const FAST: SolanaSourceOptions = { backoff: { baseMs: 20, maxMs: 100 }, requestTimeoutMs: 2000, idleScanMs: 0 };

/** A Solana method's asset, by id: SOL or a row of the token table. */
export function assetOf(method: string): SolanaAsset {
  if (method === SOL_ASSET.method) return SOL_ASSET;
  const row = SPL_TOKENS.find((t) => t.id === method);
  if (!row) throw new Error(`no Solana asset ${method}`);
  return splAsset(row);
}

export interface Running {
  source: PaymentSource;
  ledger: FakeLedger;
  log: ReturnType<typeof recordingLogger>;
  stop(): Promise<void>;
}

export function start(
  method: string,
  config: SolSection | SplSection,
  opts: SolanaSourceOptions & { ledger?: FakeLedger } = {},
): Running {
  const ledger = opts.ledger ?? new FakeLedger();
  const log = recordingLogger();
  const deps = { ledger, clock: testClock(), random: testRandom(), log, ...FAST, ...opts };
  const source = createSolanaSource(assetOf(method), config, deps);
  const ac = new AbortController();
  const done = source.run(ac.signal);
  return {
    source,
    ledger,
    log,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}
