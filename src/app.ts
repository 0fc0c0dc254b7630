import { join, dirname, basename, extname } from 'node:path';
import cron, { type ScheduledTask } from 'node-cron';
import type { Config, MethodAmounts } from './config/load.ts';
import { createIntentStore } from './db/intent-store.ts';
import { kyselyOver, migrate, openSqlite, type Db } from './db/open.ts';
import { METHOD_RULES, METHODS, type Method } from './domain/methods.ts';
import type { Clock, Logger, Random } from './domain/ports.ts';
import { createHttpApp } from './http/app.ts';
import { createCheckoutSockets, registerCheckout } from './http/checkout/index.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { serveHttp, type RunningServer } from './http/server.ts';
import { createSources } from './methods/registry.ts';
import { createSandboxSource } from './methods/sandbox/source.ts';
import { sandboxReceivers } from './methods/sandbox/receivers.ts';
import type { PaymentSource } from './methods/source.ts';
import { createEventFeed } from './services/event-feed.ts';
import { createEventService } from './services/events.ts';
import { createIntentCancellation } from './services/intent-cancel.ts';
import { createIntentListing } from './services/intent-list.ts';
import { createIntentService, type MethodDeposit } from './services/intents.ts';
import { Keys, loadMasterKey } from './services/keys.ts';
import { createLedger } from './services/ledger.ts';
import { createMailboxTokenStore } from './services/mailbox-tokens.ts';
import { createMerchantService } from './services/merchants.ts';
import { createOutbox } from './services/outbox.ts';
import { createPaymentQueries } from './services/payments.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';
import { undiciPost, type HttpPost } from './webhooks/deliver.ts';

export interface AppOptions {
  config: Config;
  /** Sandbox: simulated sources, its own database, livemode false. */
  sandbox?: boolean;
  clock: Clock;
  random: Random;
  log: Logger;
  /** Outbound webhook POST (tests may wrap it). */
  post?: HttpPost;
  /** Sources to run instead of the configured ones (tests). */
  sources?: (deps: { ledger: ReturnType<typeof createLedger>; db: Db }) => PaymentSource[] | Promise<PaymentSource[]>;
}

/** The sandbox database lives beside the live one: payd.sqlite → payd-sandbox.sqlite. */
export function databaseFile(config: Config, sandbox: boolean): string {
  const file = config.database.file;
  if (!sandbox) return file;
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}-sandbox${ext || '.sqlite'}`);
}

/** Receiving settings per enabled method; in the sandbox every method is on. */
function methodDeposits(config: Config, sandbox: boolean): Partial<Record<Method, MethodDeposit>> {
  const out: Partial<Record<Method, MethodDeposit>> = {};
  const receivers = sandbox ? sandboxReceivers() : null;
  for (const method of METHODS) {
    let amounts: MethodAmounts | undefined = config.amounts[method];
    if (receivers) {
      amounts = amounts ? { ...amounts, receiver: receivers[method] } : { receiver: receivers[method], minMinor: null, maxMinor: null, stepMinor: METHOD_RULES[method].amountStep, maxOffsetSteps: 100 };
    }
    if (!amounts) continue;
    out[method] = {
      amounts,
      payeeName: config.methods.UPI?.payeeName ?? '',
      token: method === 'USDT_TRC20' ? (config.methods.USDT_TRC20?.contract ?? 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t') : method === 'USDT_SOL' ? (config.methods.USDT_SOL?.mint ?? 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB') : undefined,
    };
  }
  return out;
}

/**
 * The composition root: builds every part from the config and opens (and migrates) the
 * database; upstreams and the HTTP listener start only in `start()`. `close()` releases
 * everything, in reverse order.
 */
export async function createApp(o: AppOptions) {
  const { config, clock, random, log } = o;
  const sandbox = o.sandbox ?? false;
  const livemode = !sandbox;
  const dbFile = databaseFile(config, sandbox);
  const cleanups: Array<() => Promise<void> | void> = [];

  const sqlite = openSqlite(dbFile);
  const db: Db = kyselyOver(sqlite);
  cleanups.push(() => db.destroy());
  await migrate(db);
  const store = createIntentStore(db, sqlite);
  cleanups.push(() => store.close());

  const keys = new Keys(loadMasterKey(config.server.masterKey?.reveal(), `${dbFile}.key`, random));
  const publicUrl = (config.server.publicUrl ?? `http://${config.server.host}:${config.server.port}`).replace(/\/+$/, '');
  const outbox = createOutbox({ clock, random });
  const merchants = createMerchantService({
    db,
    keys,
    clock,
    random,
    livemode,
    allowInsecureUrls: config.webhooks.allowInsecureUrls,
    rotationGraceSeconds: config.webhooks.secretRotationGraceSeconds,
  });
  const intents = createIntentService({
    db,
    store,
    clock,
    random,
    methods: methodDeposits(config, sandbox),
    ttlSeconds: config.intents.ttlSeconds,
    amountReuseCooldownSeconds: config.intents.amountReuseCooldownSeconds,
    livemode,
    publicUrl,
    outbox,
  });
  const ledger = createLedger({ db, clock, random, log: log.child({ component: 'ledger' }), outbox, livemode, publicUrl });
  const events = createEventService({ db, clock, outbox });
  const view = () => ({ now: clock.now(), livemode, publicUrl });
  const listing = createIntentListing({ db, view });
  const cancels = createIntentCancellation({ db, outbox, view });
  const feed = createEventFeed({ db });
  const payments = createPaymentQueries({ db });
  const dispatcher = createDispatcher({
    db,
    merchants,
    clock,
    random,
    log: log.child({ component: 'webhooks' }),
    post: o.post ?? undiciPost,
    timeoutMs: config.webhooks.timeoutSeconds * 1000,
    retrySchedule: config.webhooks.retrySchedule,
    concurrency: config.webhooks.concurrency,
    allowInsecureUrls: config.webhooks.allowInsecureUrls,
  });
  outbox.setListener(() => dispatcher.wake());

  const sourceDeps = { ledger, db, clock, random, log: log.child({ component: 'source' }) };
  const sandboxSource = createSandboxSource(db, sourceDeps);
  const mailboxTokens = createMailboxTokenStore({ db, keys, clock, random });
  // Async: a method's libraries load only when its source is built (see methods/registry.ts).
  const sources = async (): Promise<PaymentSource[]> => (o.sources ? o.sources({ ledger, db }) : sandbox ? [sandboxSource] : createSources(config, { ...sourceDeps, mailboxTokens }));

  let server: RunningServer | null = null;
  const workers: Promise<void>[] = [];
  const abort = new AbortController();
  let cronTasks: ScheduledTask[] = [];

  return {
    config,
    clock,
    random,
    log,
    db,
    livemode,
    dbFile,
    merchants,
    intents,
    ledger,
    events,
    listing,
    cancels,
    feed,
    payments,
    dispatcher,
    sandboxSource,
    sources,
    publicUrl,

    /** API + (optionally) workers: sources, webhook dispatcher, housekeeping. */
    async start(opts: { http: boolean; workers: boolean }): Promise<void> {
      if (opts.workers) {
        for (const source of await sources()) {
          log.info('payment source starting', { source: source.name });
          workers.push(source.run(abort.signal).catch((err) => log.error('payment source stopped', { source: source.name, error: String(err) })));
        }
        workers.push(dispatcher.run(abort.signal));
        await intents.expireDue();
        const expire = cron.schedule('*/5 * * * * *', () => intents.expireDue().catch((err) => log.warn('expiry run failed', { error: String(err) })), { name: 'expire-intents', noOverlap: true });
        cronTasks = [expire];
      }
      if (opts.http) {
        const checkoutLog = log.child({ component: 'checkout' });
        const app = createHttpApp({
          intents,
          merchants,
          listing,
          cancels,
          feed,
          publicUrl,
          rateLimiter: createRateLimiter({ ...config.server.rateLimit, clock }),
          clock,
          log: log.child({ component: 'http' }),
          extend: (h3) => registerCheckout(h3, { intents, merchants, clock, log: checkoutLog }),
        });
        const sockets = createCheckoutSockets({ intents, clock, log: checkoutLog });
        server = await serveHttp(app, config.server.host, config.server.port, sockets);
        log.info('payd listening', { url: server.url, livemode, database: dbFile });
      }
    },

    get url(): string | null {
      return server?.url ?? null;
    },

    /** Stops accepting, finishes in-flight requests and deliveries, closes the database. */
    async close(): Promise<void> {
      if (server) await server.close();
      server = null;
      for (const t of cronTasks) await t.destroy();
      abort.abort();
      await Promise.all(workers);
      for (const fn of cleanups.reverse()) await fn();
    },
  };
}

export type App = Awaited<ReturnType<typeof createApp>>;
