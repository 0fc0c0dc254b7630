/** Runs the real Solana source (real web3.js Connection) against the fake RPC, for integration tests. */
import type { SolSection, UsdtSolSection } from '../../src/methods/solana/config.ts';
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
  maxLagSeconds: 120,
  maxOffsetSteps: 100,
  ...more,
});

export const usdtConfig = (rpc: FakeSolanaRpc, wallet: string, more: Partial<UsdtSolSection> = {}): UsdtSolSection => ({
  ...solConfig(rpc, wallet),
  mint: USDT_MINT,
  ...more,
});

/** Fast backoff so fault tests stay short; every tick scans (the idle throttle has its own test). */
export const FAST: SolanaSourceOptions = { backoff: { baseMs: 20, maxMs: 100 }, requestTimeoutMs: 2000, idleScanMs: 0 };

export interface Running {
  source: PaymentSource;
  ledger: FakeLedger;
  log: ReturnType<typeof recordingLogger>;
  stop(): Promise<void>;
}

export function start(
  method: 'SOL' | 'USDT_SOL',
  config: SolSection | UsdtSolSection,
  opts: SolanaSourceOptions & { ledger?: FakeLedger } = {},
): Running {
  const ledger = opts.ledger ?? new FakeLedger();
  const log = recordingLogger();
  const deps = { ledger, clock: testClock(), random: testRandom(), log, ...FAST, ...opts };
  const source = method === 'SOL' ? createSolanaSource('SOL', config, deps) : createSolanaSource('USDT_SOL', config as UsdtSolSection, deps);
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
