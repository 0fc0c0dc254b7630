/** Wires a TRON source to the fake TronGrid and the fake ledger, counting fetch calls. */
import { fetch as undiciFetch } from 'undici';
import { Secret } from '../../src/config/secret.ts';
import { silentLogger } from '../../src/log/index.ts';
import type { Clock, Random } from '../../src/domain/ports.ts';
import { TRC20_TOKENS, tronAsset } from '../../src/methods/tron/tokens.ts';
import { createTronSource, type TronSource, type TronSourceConfig, type TronTuning } from '../../src/methods/tron/source.ts';
import { MERCHANT, USDT, startFakeTronGrid, type FakeTronGrid } from '../fakes/trongrid.ts';
import { createFakeLedger, type FakeLedger } from './tron-ledger.ts';

/** The one TRC20 token shipped (USDT), as its source sees it. */
const TRON_USDT = tronAsset(TRC20_TOKENS[0]!);

/** Jitter fixed at the midpoint, so backoff waits are exactly base * 2^(k-1). */
export const midRandom: Random = { bytes: (n) => new Uint8Array(n), uuid: () => '00000000-0000-4000-8000-000000000000', float: () => 0.5 };

export interface Harness {
  fake: FakeTronGrid;
  ledger: FakeLedger;
  fetchCalls: () => number;
  /** When each fetch call was made, ms. */
  fetchTimes: number[];
  source(over?: { config?: Partial<TronSourceConfig>; tuning?: Partial<TronTuning>; clock?: Clock }): TronSource;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const fake = await startFakeTronGrid();
  const ledger = createFakeLedger();
  const fetchTimes: number[] = [];
  // Counts listing calls; the solidified-head reads (for lag) are counted by the fake apart.
  const fetch: typeof undiciFetch = (input, init) => {
    if (!String(input).includes('/walletsolidity/getnowblock')) fetchTimes.push(Date.now());
    return undiciFetch(input, init);
  };
  return {
    fake,
    ledger,
    fetchCalls: () => fetchTimes.length,
    fetchTimes,
    source: (over = {}) =>
      createTronSource(
        TRON_USDT,
        { address: MERCHANT, apiUrl: fake.url, contract: USDT, pollSeconds: 0.05, maxOffsetSteps: 100, rescanSeconds: 600, rescanHours: 24, unconfirmedMinutes: 30, maxLagSeconds: 120, ...over.config },
        {
          ledger,
          clock: over.clock ?? { now: () => Date.now() },
          random: midRandom,
          log: silentLogger(),
          fetch,
          // No pacing unless a test asks for it (the pacing test uses the real default).
          // A key set to undefined falls back to the source's own default.
          tuning: Object.fromEntries(Object.entries({ timeoutMs: 2000, backoff: { baseMs: 50, maxMs: 400 }, minRequestIntervalMs: 0, ...over.tuning }).filter(([, v]) => v !== undefined)),
        },
      ),
    close: () => fake.close(),
  };
}

export const withKey = (key: string): Partial<TronSourceConfig> => ({ apiKey: new Secret(key) });

/** Polls `cond` every 10 ms; fails after `ms`. */
export async function waitFor(cond: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs the source's loop until the returned stop() is awaited. */
export function running(source: TronSource): () => Promise<void> {
  const ac = new AbortController();
  const done = source.run(ac.signal);
  return async () => {
    ac.abort();
    await done;
  };
}
