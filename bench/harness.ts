import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../src/app.ts';
import { parseConfig } from '../src/config/load.ts';
import { silentLogger } from '../src/log.ts';
import { sandboxReceivers } from '../src/methods/sandbox/receivers.ts';
import { systemClock, systemRandom } from '../src/system.ts';

const RECEIVERS = sandboxReceivers();
export const UPI_VPA = 'shop@hdfcbank';

/**
 * The config a bench payd runs with: a real SQLite file, every method enabled with
 * upstreams on closed loopback ports (no source workers run), rate limit off, and
 * room for many intents per amount.
 */
export function benchConfig(dir: string) {
  return {
    server: { host: '127.0.0.1', port: 0, publicUrl: 'https://pay.example.com', rateLimit: { perSecond: 0, burst: 1 } },
    database: { file: join(dir, 'payd.sqlite') },
    webhooks: { retrySchedule: [1, 1, 1], timeoutSeconds: 5 },
    intents: {},
    methods: {
      UPI: {
        vpa: UPI_VPA,
        payeeName: 'Bench Shop',
        minAmount: 1,
        maxAmount: 1_000_000,
        maxOffsetSteps: 1000,
        imap: { host: '127.0.0.1', port: 1, secure: false, user: 'alerts', password: 'x' },
        accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
      },
      USDT_TRC20: { address: RECEIVERS.USDT_TRC20, apiUrl: 'http://127.0.0.1:1' },
      USDT_SOL: { wallet: RECEIVERS.USDT_SOL, rpcUrl: 'http://127.0.0.1:1' },
      SOL: { wallet: RECEIVERS.SOL, rpcUrl: 'http://127.0.0.1:1' },
    },
  };
}

export interface BenchPayd {
  app: App;
  dir: string;
  url: string | null;
  /** A merchant and its API headers. */
  merchant(webhookUrl?: string | null): Promise<{ clientId: string; headers: Record<string, string> }>;
  close(): Promise<void>;
}

/** A real payd (the composition root, real clock, silent logger) on a fresh temp directory. */
export async function startBenchPayd(o: { http: boolean; workers: boolean }): Promise<BenchPayd> {
  const dir = mkdtempSync(join(tmpdir(), 'payd-bench-'));
  const config = parseConfig(benchConfig(dir), dir, {});
  const app = await createApp({ config, clock: systemClock, random: systemRandom, log: silentLogger(), sources: () => [] });
  await app.start({ http: o.http, workers: o.workers });
  return {
    app,
    dir,
    url: app.url,
    async merchant(webhookUrl = null) {
      const c = await app.merchants.create({ name: 'Bench shop', webhookUrl });
      return { clientId: c.client_id, headers: { 'x-client-id': c.client_id, 'x-client-secret': c.client_secret } };
    },
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Distinct UPI amounts (whole rupees, 5 apart = 500 offset steps) so pay_amount reservation rarely collides. */
export const benchAmount = (n: number, variety = 5000): number => 5 * ((n % variety) + 1);
