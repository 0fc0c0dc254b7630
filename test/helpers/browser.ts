// Headless Debian Chromium driven by playwright-core, plus a sandbox payd app for checkout tests.
// Missing Chromium is a failure, never a skip: the checkout page must be proven in a real browser.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createApp, type App } from '../../src/app/index.ts';
import { parseConfig } from '../../src/methods/load-config.ts';
import type { Clock } from '../../src/domain/ports.ts';
import { silentLogger } from '../../src/log/index.ts';
import { systemRandom } from '../../src/system.ts';
import { startFakeRateSources, type FakeSourceName } from '../fakes/rates/server.ts';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile directory (removed on close), in a given time zone and locale and with extra flags if asked. */
export async function launchBrowser(o: { timezoneId?: string; locale?: string; args?: string[] } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed (${CHROMIUM} missing): apt-get update && apt-get install -y chromium`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'payd-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, timeout: 20_000, ...o, args: [...ARGS, ...(o.args ?? [])] });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  context.setDefaultTimeout(5_000);
  return {
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A clock the test can move forward, ms. */
export function shiftableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => (offset += ms) };
}

export interface CheckoutApp {
  app: App;
  url: string;
  clock: ReturnType<typeof shiftableClock>;
  /** A pending UPI intent of a new merchant. */
  createIntent(opts?: { merchantName?: string; orderId?: string; returnUrl?: string; amount?: number; currency?: string }): Promise<{ id: string; pageUrl: string; headers: Record<string, string> }>;
  /** Settles the intent exactly as a manual reconciliation would; returns the transaction reference. */
  settle(intentId: string): Promise<string>;
  close(): Promise<void>;
}

/** A sandbox payd (HTTP only, no workers) on 127.0.0.1 with its own database; `extra` adds config keys (e.g. methods). */
export async function startCheckoutApp(extra: Record<string, unknown> = {}): Promise<CheckoutApp> {
  const dir = mkdtempSync(join(tmpdir(), 'payd-checkout-'));
  const clock = shiftableClock();
  // The per-IP limit on /pay/* is off: every page, asset and poll of a browser run comes from
  // 127.0.0.1 (the limit has its own tests in public-limits.test.ts).
  const config = parseConfig({ database: { file: join(dir, 'payd.sqlite') }, server: { host: '127.0.0.1', port: 0, publicRateLimit: { perSecond: 0, burst: 1 } }, ...extra }, dir);
  const app = await createApp({ config, sandbox: true, clock, random: systemRandom, log: silentLogger() });
  await app.start({ http: true, workers: false });
  const url = app.url!;
  let n = 0;
  return {
    app,
    url,
    clock,
    async createIntent(opts = {}) {
      const creds = await app.merchants.create({ name: opts.merchantName ?? 'Chai Corner' });
      const merchant = await app.merchants.get(creds.client_id);
      const created = await app.intents.create(merchant, {
        amount: opts.amount ?? 120.5,
        currency: opts.currency ?? 'UPI',
        order_id: opts.orderId ?? `ORD-${++n}`,
        return_url: opts.returnUrl,
      });
      const headers = { 'x-client-id': creds.client_id, 'x-client-secret': creds.client_secret };
      return { id: created.intent_id, pageUrl: `${url}/pay/${created.intent_id}`, headers };
    },
    async settle(intentId) {
      const row = await app.intents.find(intentId);
      if (!row) throw new Error(`no intent ${intentId}`);
      const now = clock.now();
      const txRef = `UTR${now}${++n}`;
      await app.ledger.ingestWith(
        { method: row.method as 'UPI', receiver: row.receiver, amountMinor: row.payAmountMinor, txRef, occurredAt: now, observedAt: now, source: 'manual' },
        undefined,
        { intentId },
      );
      return txRef;
    },
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A tiny return_url target on 127.0.0.1 that records every request. */
export async function startReturnServer(): Promise<{ url: string; requests: URL[]; next(timeoutMs: number): Promise<URL>; close(): Promise<void> }> {
  const requests: URL[] = [];
  const waiters: Array<(u: URL) => void> = [];
  const server = createServer((req: IncomingMessage, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(u);
    waiters.splice(0).forEach((w) => w(u));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Shop</title><h1 id="thanks">Back at the shop</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/orders/done?src=payd`,
    requests,
    next(timeoutMs) {
      if (requests.length) return Promise.resolve(requests[0]);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`return_url not visited within ${timeoutMs} ms`)), timeoutMs);
        waiters.push((u) => {
          clearTimeout(t);
          resolve(u);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The rates a shop's checkout tests quote from: USDT in rupees, SOL in dollars, dollars in rupees. */
export const SHOP_RATES: Partial<Record<FakeSourceName, Record<string, string>>> = { coindcx: { 'USDT/INR': '83.75' }, kraken: { 'SOL/USD': '150.00000' }, frankfurter: { 'USD/INR': '84' } };

/**
 * One Chromium and the rate-source fakes (test/fakes/rates/) for a test file: started before its
 * tests, closed after them. `pricing()` is the config section that prices each pair from its fake.
 */
export function browserAndRates(readings = SHOP_RATES): { browser(): Browser; pricing(): { pairs: Record<string, string[]>; sources: Record<string, { baseUrl: string }> } } {
  let browser: Browser | undefined;
  let fakes: Awaited<ReturnType<typeof startFakeRateSources>> | undefined;
  before(async () => {
    fakes = await startFakeRateSources(readings);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await fakes?.close();
  });
  const named = Object.entries(readings) as Array<[FakeSourceName, Record<string, string>]>;
  return {
    browser: () => browser!,
    pricing: () => ({
      pairs: Object.fromEntries(named.flatMap(([source, pairs]) => Object.keys(pairs).map((pair) => [pair, [source]]))),
      sources: Object.fromEntries(named.map(([source]) => [source, { baseUrl: fakes!.sources[source].url }])),
    }),
  };
}
