import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app/index.ts';
import { parseConfig } from '../../src/methods/load-config.ts';
import { silentLogger } from '../../src/log/index.ts';
import { systemClock, systemRandom } from '../../src/system.ts';
import { baseConfig } from '../../test/helpers/payd.ts';

export const UPI_VPA = 'shop@hdfcbank';

/**
 * The config a bench payd runs with: the tests' base config (a real SQLite file, every
 * method enabled with upstreams on closed loopback ports, rate limit off) with room for
 * many intents per amount.
 */
export function benchConfig(dir: string) {
  const config = baseConfig(dir, { webhooks: { timeoutSeconds: 5 } });
  config.methods.UPI = { ...config.methods.UPI, vpa: UPI_VPA, maxAmount: 1_000_000, maxOffsetSteps: 1000 } as typeof config.methods.UPI;
  return config;
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
