import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app/index.ts';
import { parseConfig } from '../../src/methods/load-config.ts';
import type { Clock, Logger } from '../../src/domain/ports.ts';
import { silentLogger } from '../../src/log/index.ts';
import { sandboxReceivers } from '../../src/methods/sandbox/receivers.ts';
import type { MethodRegistry } from '../../src/methods/registry.ts';
import type { PaymentSource } from '../../src/methods/source.ts';
import { systemRandom } from '../../src/system.ts';
import type { HttpPost } from '../../src/webhooks/deliver.ts';
import { checkedFetch } from './openapi.ts';
import type { TestStore } from './stores.ts';

export const RECEIVERS = sandboxReceivers();

/** A clock the test moves by hand. */
export function testClock(start = Date.now()) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
    set(ms: number) {
      t = ms;
    },
  };
}
export type TestClock = ReturnType<typeof testClock>;

/** Every method enabled, upstreams pointing at closed loopback ports (no workers run in API tests). */
export function baseConfig(dir: string, extra: Record<string, any> = {}) {
  const { methods, ...rest } = extra;
  return {
    server: { host: '127.0.0.1', port: 0, publicUrl: 'https://pay.example.com', rateLimit: { perSecond: 0, burst: 1 }, publicRateLimit: { perSecond: 0, burst: 1 }, ...(rest.server ?? {}) },
    // A store from test/helpers/stores.ts may replace it (PostgreSQL: { url }).
    database: rest.database ?? { file: join(dir, 'payd.sqlite') },
    // Test receivers listen on loopback: an operator's opt-in (webhooks.allowLoopback).
    webhooks: { retrySchedule: [1, 1, 1], timeoutSeconds: 2, allowLoopback: true, ...(rest.webhooks ?? {}) },
    intents: rest.intents ?? {},
    ...(rest.notifications ? { notifications: rest.notifications } : {}),
    ...(rest.pricing ? { pricing: rest.pricing } : {}),
    ...(rest.links ? { links: rest.links } : {}),
    methods: {
      UPI: {
        vpa: 'shop@hdfcbank',
        payeeName: 'Example Shop',
        minAmount: 1,
        maxAmount: 100000,
        imap: { host: '127.0.0.1', port: 1, secure: false, user: 'alerts', password: 'x' },
        alertRecipients: ['alerts@example.com'],
        accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
      },
      USDT_TRC20: { address: RECEIVERS.USDT_TRC20, apiUrl: 'http://127.0.0.1:1' },
      USDT_SOL: { wallet: RECEIVERS.USDT_SOL, rpcUrl: 'http://127.0.0.1:1' },
      SOL: { wallet: RECEIVERS.SOL, rpcUrl: 'http://127.0.0.1:1' },
      ...(methods ?? {}),
    },
  };
}

export interface PaydHarness {
  app: App;
  /** The config it runs with, as written in a config file (a CLI beside it: same store). */
  rawConfig: Record<string, any>;
  dir: string;
  url: string;
  clock: Clock;
  /** Creates a merchant and returns its credentials and request headers. */
  merchant(name?: string, webhookUrl?: string | null): Promise<{ clientId: string; secret: string; webhookSecret: string; headers: Record<string, string> }>;
  api(method: string, path: string, o?: { body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  close(): Promise<void>;
}

export async function startPayd(o: {
  dir?: string;
  config?: Record<string, any>;
  rawConfig?: Record<string, any>;
  sandbox?: boolean;
  clock?: Clock;
  post?: HttpPost;
  http?: boolean;
  workers?: boolean;
  /** Sources to run; 'configured' builds the real ones from the config. Default: none. */
  sources?: ((deps: { ledger: App['ledger']; db: App['db'] }) => PaymentSource[] | Promise<PaymentSource[]>) | 'configured';
  keepDir?: boolean;
  /** Where the app logs (default: nowhere). */
  log?: Logger;
  /** The methods it knows (default: the built-in ones). */
  methods?: MethodRegistry;
  /** The store to run on (test/helpers/stores.ts); default: a SQLite file in `dir`. */
  store?: TestStore;
  /** On PostgreSQL, align the clock to the database's (default: only when no clock is injected: a test's clock rules). */
  databaseClock?: boolean;
} = {}): Promise<PaydHarness> {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'payd-test-'));
  let extra = o.config;
  if (o.store) {
    const on = await o.store.config();
    extra = { ...on, ...o.config, server: { ...on.server, ...o.config?.server } };
  }
  const raw = o.rawConfig ?? baseConfig(dir, extra);
  const config = parseConfig(raw, dir, {}, o.methods);
  const clock = o.clock ?? { now: () => Date.now() };
  const app = await createApp({ config, sandbox: o.sandbox, clock, databaseClock: o.databaseClock ?? o.clock === undefined, random: systemRandom, log: o.log ?? silentLogger(), post: o.post, methods: o.methods, sources: o.sources === 'configured' ? undefined : (o.sources ?? (() => [])) });
  await app.start({ http: o.http ?? true, workers: o.workers ?? false });
  const url = app.url ?? '';
  return {
    app,
    dir,
    url,
    clock,
    rawConfig: raw,
    async merchant(name = 'Test shop', webhookUrl = null) {
      const c = await app.merchants.create({ name, webhookUrl });
      return {
        clientId: c.client_id,
        secret: c.client_secret,
        webhookSecret: c.webhook_secret,
        headers: { 'x-client-id': c.client_id, 'x-client-secret': c.client_secret },
      };
    },
    async api(method, path, r = {}) {
      const headers: Record<string, string> = { ...(r.headers ?? {}) };
      let body: string | undefined = r.raw;
      if (r.body !== undefined) {
        body = JSON.stringify(r.body);
        headers['content-type'] ??= 'application/json';
      }
      // Every API answer a test receives must match the OpenAPI document.
      const res = await checkedFetch()(url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: the test asserts on text */
      }
      return { status: res.status, body: parsed, headers: res.headers, text };
    },
    async close() {
      await app.close();
      if (!o.keepDir && !o.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
