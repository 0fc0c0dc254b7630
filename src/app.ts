import { hostname } from 'node:os';
import { join, dirname, basename, extname } from 'node:path';
import { methodPolicy, revealSecrets, type Config, type MethodAmounts } from './config/load.ts';
import { migrate, type Db } from './db/open.ts';
import { describeTarget, openStore, type StoreTarget } from './db/store.ts';
import { openWakeups } from './db/wakeups.ts';
import { nodeClock } from './db/clock.ts';
import { DEFAULT_MAX_OFFSET_STEPS, DEFAULT_MERCHANT_SHARE_PERCENT, DEFAULT_SURCHARGE_BASIS_POINTS, METHOD_RULES, METHODS, type Method } from './domain/methods.ts';
import type { Clock, Logger, Random } from './domain/ports.ts';
import type { CheckoutSockets } from './http/checkout/index.ts';
import type { Readiness } from './http/ops.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import type { RunningServer } from './http/server.ts';
import { createPrometheusMetrics } from './metrics/prometheus.ts';
import { createSources } from './methods/registry.ts';
import { createSandboxSource } from './methods/sandbox/source.ts';
import { sandboxReceivers } from './methods/sandbox/receivers.ts';
import type { PaymentSource } from './methods/source.ts';
import { createEventFeed } from './services/event-feed.ts';
import { createEventService } from './services/events.ts';
import { createIntentCancellation } from './services/intent-cancel.ts';
import { createIntentListing } from './services/intent-list.ts';
import { createIntentService, type MethodDeposit } from './services/intents.ts';
import { createKeyring } from './services/keys.ts';
import { createLedger, DEFAULT_POLICY } from './services/ledger.ts';
import { createMailboxTokenStore } from './services/mailbox-tokens.ts';
import { createMerchantService } from './services/merchants.ts';
import { createOutbox } from './services/outbox.ts';
import { createPaymentQueries } from './services/payments.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';
import type { HttpPost } from './webhooks/deliver.ts';
import { createWebhookPost } from './webhooks/target.ts';
import { createSettlementService } from './services/settlement.ts';
import { createHeldPayments } from './services/held-payments.ts';
import { moneyOfOne } from './services/intent-money.ts';
import { createDoctor } from './services/doctor.ts';
import { createUpiSilence } from './services/upi-silence.ts';
import { createOperatorActions } from './services/operator-actions.ts';
import { createLeadership } from './workers/leader.ts';
import { createWorkerLease } from './workers/lease.ts';
import { describeError, runLoop } from './workers/loop.ts';
import { isDown, SourceHealth } from './workers/source-health.ts';
import { superviseSource } from './workers/supervise.ts';

export interface AppOptions {
  config: Config;
  /** Sandbox: simulated sources, its own database, livemode false. */
  sandbox?: boolean;
  clock: Clock;
  /**
   * On PostgreSQL, correct `clock` by its offset to the database's clock (default true): every
   * node then stamps and compares times alike. Tests that drive time themselves turn it off.
   */
  databaseClock?: boolean;
  random: Random;
  log: Logger;
  /** Outbound webhook POST (tests may wrap it). */
  post?: HttpPost;
  /** Sources to run instead of the configured ones (tests). */
  sources?: (deps: { ledger: ReturnType<typeof createLedger>; db: Db }) => PaymentSource[] | Promise<PaymentSource[]>;
  /** Worker lease timing, ms (tests shorten it). */
  lease?: { ttlMs?: number; renewMs?: number; standbyPollMs?: number };
}

/** The worker lease: renewed every 3 s, so a holder that cannot renew is replaced ≤ 12 s after its last renewal. */
const LEASE_DEFAULTS = { ttlMs: 12_000, renewMs: 3_000, standbyPollMs: 1_000 };
/** How often the leader records its sources' positions for `payd doctor` (another process), ms. */
const POSITION_RECORD_MS = 5_000;
/** The checkpoint a source's position is recorded under (not a source checkpoint: nothing resumes from it). */
const positionKey = (key: string): string => `lag:${key}`;
/** How often expiry runs, ms. */
const EXPIRY_INTERVAL_MS = 5_000;
/** How often a PostgreSQL node measures its clock against the database's again, ms. */
const CLOCK_SYNC_MS = 60_000;

/** The sandbox database lives beside the live one: payd.sqlite → payd-sandbox.sqlite. */
export function databaseFile(config: Config, sandbox: boolean): string {
  const file = config.database.file;
  if (!sandbox) return file;
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}-sandbox${ext || '.sqlite'}`);
}

/**
 * The live store is PostgreSQL when `database.url` is set, else the SQLite file; the sandbox
 * is always a SQLite file (the sandbox's store: one machine, no sharing).
 */
export function storeTarget(config: Config, sandbox: boolean): StoreTarget {
  const { url, pool, statementTimeoutMs } = config.database;
  if (url && !sandbox) return { kind: 'postgres', url: url.reveal(), pool, statementTimeoutMs };
  return { kind: 'sqlite', file: databaseFile(config, sandbox) };
}

/** methods.<M>.maxLagSeconds in ms, for a source that feeds a configured method (the sandbox's has no limit). */
function lagLimit(config: Config, method: string | undefined): number | undefined {
  const section = method ? (config.methods as Record<string, { maxLagSeconds?: number } | undefined>)[method] : undefined;
  return section?.maxLagSeconds === undefined ? undefined : section.maxLagSeconds * 1000;
}

/** Receiving settings per enabled method; in the sandbox every method is on. */
function methodDeposits(config: Config, sandbox: boolean): Partial<Record<Method, MethodDeposit>> {
  const out: Partial<Record<Method, MethodDeposit>> = {};
  const receivers = sandbox ? sandboxReceivers() : null;
  for (const method of METHODS) {
    let amounts: MethodAmounts | undefined = config.amounts[method];
    if (receivers) {
      amounts = amounts ? { ...amounts, receiver: receivers[method] } : { receiver: receivers[method], minMinor: null, maxMinor: null, stepMinor: METHOD_RULES[method].amountStep, maxOffsetSteps: DEFAULT_MAX_OFFSET_STEPS, surchargeBasisPoints: DEFAULT_SURCHARGE_BASIS_POINTS, merchantSharePercent: DEFAULT_MERCHANT_SHARE_PERCENT };
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
  const { config, random, log } = o;
  const sandbox = o.sandbox ?? false;
  const livemode = !sandbox;
  const target = storeTarget(config, sandbox);
  /** The SQLite file, or where the PostgreSQL database is (no credentials). */
  const dbFile = describeTarget(target);
  const cleanups: Array<() => Promise<void> | void> = [];

  const opened = openStore(target);
  const db: Db = opened.db;
  // Ends the PostgreSQL pool / closes the SQLite connection.
  cleanups.push(() => db.destroy());
  try {
    await migrate(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  // On PostgreSQL the database's clock, so every node stamps and compares times alike.
  let synced: Awaited<ReturnType<typeof nodeClock>>;
  try {
    synced = o.databaseClock === false ? { clock: o.clock, sync: async () => {} } : await nodeClock(db, o.clock, log.child({ component: 'clock' }));
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const clock = synced.clock;
  const resync = setInterval(() => void synced.sync().catch((err) => log.warn('could not read the database clock', { error: describeError(err) })), CLOCK_SYNC_MS);
  resync.unref();
  cleanups.push(() => clearInterval(resync));
  const store = opened.intentStore();
  cleanups.push(() => store.close());
  // Changes seen by every process on this database (LISTEN/NOTIFY on PostgreSQL). Closed
  // before the database, so publishes still under way go out first.
  const wakeups = await openWakeups({ db, postgresUrl: target.kind === 'postgres' ? target.url : null, log: log.child({ component: 'wake-ups' }) });
  cleanups.push(() => wakeups.close());

  // UPI silence is read from the ledger: every process (leader or standby) reports the same.
  const upi = config.methods.UPI;
  const upiSilence = upi && !sandbox ? createUpiSilence({ db, clock, accounts: upi.accounts, expectAlertWithinHours: upi.expectAlertWithinHours }) : null;

  // Read at scrape time: the running sources' health and the lease role (set by start()).
  let workerSet: { role: () => 'leader' | 'standby'; health: SourceHealth[] } | null = null;
  const metrics = createPrometheusMetrics({
    sources: () => (workerSet?.role() === 'leader' ? workerSet.health.map((h) => ({ key: h.key, up: !isDown(h.status()), lastOkAt: h.lastOkAt, lagMs: h.lagMs() })) : []),
    leader: () => workerSet?.role() === 'leader',
    now: () => clock.now(),
    upiAlerts: upiSilence ? async () => (await upiSilence.status()).accounts : undefined,
  });

  // Read at first use: commands that need no key never ask for one (systemd credentials).
  // With PostgreSQL the key is configured (config/load.ts requires it): there is no file beside the database.
  const keys = createKeyring({ db, configured: config.server.masterKey, keyFile: `${target.kind === 'sqlite' ? target.file : databaseFile(config, false)}.key`, random, clock });
  const publicUrl = (config.server.publicUrl ?? `http://${config.server.host}:${config.server.port}`).replace(/\/+$/, '');
  const outbox = createOutbox({ clock, random, wakeups });
  // The sandbox delivers to loopback (the demo's --webhook-url to a local receiver); a live
  // daemon only when its operator says so: a merchant must not reach the daemon's own host.
  const allowLoopback = config.webhooks.allowLoopback || sandbox;
  const merchants = createMerchantService({
    db,
    keys,
    clock,
    random,
    livemode,
    allowInsecureUrls: config.webhooks.allowInsecureUrls,
    allowLoopback,
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
    metrics,
    log: log.child({ component: 'intents' }),
  });
  const deposits = methodDeposits(config, sandbox);
  // Sandbox methods without a config section get the defaults over their sandbox amounts.
  const policies = (m: Method) => config.policies[m] ?? (deposits[m] ? methodPolicy(m, {}, deposits[m].amounts) : DEFAULT_POLICY);
  const ledger = createLedger({ db, clock, random, log: log.child({ component: 'ledger' }), outbox, livemode, publicUrl, metrics, policies });
  const events = createEventService({ db, clock, outbox });
  const view = () => ({ now: clock.now(), livemode, publicUrl });
  const listing = createIntentListing({ db, view });
  const cancels = createIntentCancellation({ db, outbox, view });
  const feed = createEventFeed({ db });
  const payments = createPaymentQueries({ db });
  const settlement = createSettlementService({ db, ledger, intents, clock });
  const heldPayments = createHeldPayments({ db, ledger, view });
  // Webhook connections check the address they connect to (private networks refused unless allowed).
  const webhookTarget = createWebhookPost({ allowPrivateNetworks: config.webhooks.allowPrivateNetworks, allowLoopback });
  cleanups.push(() => webhookTarget.close());
  // Random per start: a restarted process is a new holder even if its pid repeats.
  const me = { holder: random.uuid(), host: hostname(), pid: process.pid };
  const dispatcher = createDispatcher({
    db,
    holder: me.holder,
    metrics,
    merchants,
    clock,
    random,
    log: log.child({ component: 'webhooks' }),
    post: o.post ?? webhookTarget.post,
    timeoutMs: config.webhooks.timeoutSeconds * 1000,
    retrySchedule: config.webhooks.retrySchedule,
    concurrency: config.webhooks.concurrency,
    allowInsecureUrls: config.webhooks.allowInsecureUrls,
    allowLoopback,
  });

  const sourceDeps = { ledger, db, clock, random, log: log.child({ component: 'source' }) };
  const sandboxSource = createSandboxSource(db, sourceDeps);
  const actions = createOperatorActions({ merchants, events, dispatcher, intents, payments, sandboxSource, random, waitForOtherMs: config.webhooks.timeoutSeconds * 1000 + 5000 });
  const mailboxTokens = createMailboxTokenStore({ db, keys, clock, random });
  // Async: a method's libraries load only when its source is built (see methods/registry.ts).
  const sources = async (): Promise<PaymentSource[]> => (o.sources ? o.sources({ ledger, db }) : sandbox ? [sandboxSource] : createSources(config, { ...sourceDeps, mailboxTokens }));
  const doctor = createDoctor({
    dbFile,
    db,
    livemode,
    methods: Object.keys(config.amounts),
    sources,
    upiSilence,
    clock,
    // What the worker leader last recorded (every 5 s), and the limit it is held to.
    lag: async (key) => ({ asOf: (await ledger.loadCheckpoint<{ asOf?: number }>(positionKey(key)))?.asOf, maxLagMs: sandbox ? undefined : lagLimit(config, key) }),
  });

  let server: RunningServer | null = null;
  let metricsServer: { url: string } | null = null;
  let sockets: CheckoutSockets | null = null;
  const abort = new AbortController();
  /** Stops of what start() started, registered as each starts; close() runs them newest first. */
  const stops: Array<{ name: string; stop: () => Promise<void> }> = [];
  /** Epoch ms by which close() must be done; set when closing starts. */
  let closingDeadline: number | null = null;

  /** The leader's work: sources (supervised), the webhook dispatcher and expiry, until `signal` aborts. */
  async function lead(signal: AbortSignal, health: SourceHealth[], running: PaymentSource[], previous: { holder: string; dead: boolean } | undefined): Promise<void> {
    if (previous?.dead) {
      const freed = await dispatcher.releaseLeasesOf(previous.holder);
      if (freed > 0) log.info('freed webhook deliveries of the dead previous leader', { events: freed });
    }
    const work: Promise<void>[] = running.map((source, i) => {
      log.info('payment source starting', { source: source.name });
      return superviseSource({ source, health: health[i]!, signal, log: log.child({ component: 'source' }), random });
    });
    // On shutdown, in-flight deliveries may run until 2.5 s before the deadline (room to record
    // the cut-off ones, release the lease and close the database); on a lost lease, one timeout.
    work.push(dispatcher.run(signal, { drainUntil: () => (closingDeadline ?? Date.now() + config.webhooks.timeoutSeconds * 1000 + 1000) - (closingDeadline ? 2500 : 0) }));
    const expiryLog = log.child({ component: 'expiry' });
    // The lag as this leader sees it, for `payd doctor` in another process.
    const recordPositions = async () => {
      for (const h of health) {
        const asOf = h.position();
        if (asOf !== undefined) await ledger.saveCheckpoint({ key: positionKey(h.key), value: { asOf } });
      }
    };
    work.push(runLoop({ name: 'source positions', intervalMs: POSITION_RECORD_MS, tick: recordPositions, signal, log: log.child({ component: 'lag' }), random }));
    work.push(runLoop({ name: 'intent expiry', intervalMs: EXPIRY_INTERVAL_MS, tick: async () => void (await intents.expireDue()), signal, log: expiryLog, random }));
    await Promise.all(work);
  }

  async function readiness(): Promise<Readiness> {
    const sourcesOut: Record<string, unknown> = {};
    const failing: string[] = [];
    for (const h of workerSet?.health ?? []) {
      const st = h.status();
      sourcesOut[h.key] = st;
      if (isDown(st)) failing.push(h.key);
    }
    const workers = workerSet ? workerSet.role() : 'off';
    let alerts: Record<string, unknown> | undefined;
    if (upiSilence?.expectMs !== undefined) {
      const s = await upiSilence.status();
      const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
      alerts = { UPI: { state: s.silent ? 'silent' : 'ok', last_verified_at: iso(s.lastAlertAt), waiting_since: iso(s.waitingSince), expect_alert_within_hours: s.expectMs! / 3_600_000 } };
      if (s.silent && !failing.includes('UPI')) failing.push('UPI');
    }
    const ready = failing.length === 0;
    const body: Record<string, unknown> = { status: ready ? 'ok' : 'unavailable', workers, sources: sourcesOut };
    if (alerts) body.alerts = alerts;
    if (!ready) body.failing = failing;
    return { ready, body };
  }

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
    heldPayments,
    settlement,
    dispatcher,
    sandboxSource,
    actions,
    doctor,
    sources,
    publicUrl,
    readiness,

    /**
     * The API first (a port that cannot be bound fails here, before any worker starts), then
     * the workers: they run only while this process holds the database's worker lease.
     * On failure, close() releases whatever was started.
     */
    async start(opts: { http: boolean; workers: boolean }): Promise<void> {
      // Refuse another master key (and missing secrets) before serving or sending anything.
      await keys.get();
      if (opts.workers) revealSecrets(config.methods);
      // Built (their modules loaded) before the port is bound, started only after: building connects nothing.
      const toRun = opts.workers ? await sources() : [];
      let listening: string | null = null;
      if (opts.http) {
        // Loaded only to serve: every CLI command builds this app too, and h3 cost each one's
        // start-up (its web Headers alone make Node compile its own fetch: 32 ms in a profile).
        const [{ createHttpApp }, { createCheckoutSockets, registerCheckout }, { registerOps, serveMetrics }, { serveHttp }, { createClientAddress }] = await Promise.all([
          import('./http/app.ts'),
          import('./http/checkout/index.ts'),
          import('./http/ops.ts'),
          import('./http/server.ts'),
          import('./http/client-address.ts'),
        ]);
        // Behind a trusted reverse proxy, the client is read from X-Forwarded-For: every per-IP limit counts it.
        const clientAddress = createClientAddress(config.server.trustedProxies, (peer) =>
          log.warn('requests arrive through a proxy on this host, but server.trustedProxies is empty: every client behind it shares one per-IP bucket', { peer }),
        );
        const metricsEndpoint = { text: () => metrics.registry.metrics(), contentType: metrics.registry.contentType, allow: config.server.metrics.allow, listen: config.server.metrics.listen };
        const checkoutLog = log.child({ component: 'checkout' });
        // One per-IP bucket for all anonymous traffic: API, checkout page and its websocket.
        const publicLimiter = createRateLimiter({ ...config.server.publicRateLimit, clock });
        const app = createHttpApp({
          intents,
          merchants,
          listing,
          cancels,
          heldPayments,
          feed,
          publicUrl,
          rateLimiter: createRateLimiter({ ...config.server.rateLimit, clock }),
          publicLimiter,
          clientAddress,
          clock,
          log: log.child({ component: 'http' }),
          extend: (h3) => {
            registerOps(h3, {
              readiness,
              metrics: metricsEndpoint,
            });
            registerCheckout(h3, { intents, merchants, clock, log: checkoutLog, livemode, limiter: publicLimiter, clientAddress, payeeName: config.methods.UPI?.payeeName ?? '', money: (i) => moneyOfOne(db, i) });
          },
        });
        metrics.collectProcessMetrics();
        sockets = createCheckoutSockets({
          intents,
          clock,
          log: checkoutLog,
          limiter: publicLimiter,
          clientAddress,
          maxPerIntent: config.server.liveSockets.perIntent,
          maxTotal: config.server.liveSockets.total,
          wakeups,
        });
        const running = await serveHttp(app, config.server.host, config.server.port, sockets);
        server = running;
        // In-flight requests get until shortly before the deadline; then their connections are closed.
        stops.push({ name: 'http', stop: () => running.close(Math.max(0, (closingDeadline ?? Date.now() + 8000) - Date.now() - 1000)) });
        listening = running.url;
        const listen = metricsEndpoint.listen;
        if (listen) {
          const m = await serveMetrics({ ...metricsEndpoint, listen });
          metricsServer = m;
          stops.push({ name: 'metrics', stop: () => m.close() });
        }
      }
      if (opts.workers) {
        // Events written by any process on this database wake the dispatcher (it runs only while leader).
        const unsubscribe = wakeups.subscribe(() => dispatcher.wake());
        stops.push({ name: 'wake-ups', stop: async () => unsubscribe() });
        const running = toRun;
        const health = running.map((s) => new SourceHealth(s.method ?? s.name, s.name, clock, sandbox ? undefined : lagLimit(config, s.method)));
        const timing = { ...LEASE_DEFAULTS, ...o.lease };
        const leaseLog = log.child({ component: 'lease' });
        const leadership = createLeadership({
          lease: createWorkerLease({ db, clock, me, ttlMs: timing.ttlMs }),
          clock,
          log: leaseLog,
          ...timing,
          lead: (signal, previous) => lead(signal, health, running, previous),
        });
        workerSet = { role: () => leadership.role, health };
        const done = leadership.run(abort.signal).catch((err) => leaseLog.error('worker lease loop failed', { error: describeError(err) }));
        stops.push({
          name: 'workers',
          stop: async () => {
            abort.abort();
            await done;
          },
        });
        await leadership.firstTried();
        log.info(leadership.role === 'leader' ? 'workers running (this process holds the worker lease)' : 'workers standing by (another process holds the worker lease)', { holder: me.holder });
      }
      // Logged once everything is up (the workers' first lease attempt included).
      if (listening) log.info('payd listening', { url: listening, livemode, database: dbFile });
    },

    /** Open checkout websockets and intents watched for them. */
    liveSockets: () => sockets?.stats() ?? { sockets: 0, watchers: 0 },

    get url(): string | null {
      return server?.url ?? null;
    },

    /** The metrics listener (server.metrics.listen), when configured and serving. */
    get metricsUrl(): string | null {
      return metricsServer?.url ?? null;
    },

    /**
     * Stops the API and the workers together (in-flight requests and deliveries finish, the
     * lease is released), then closes the database, all within one deadline (default 10 s).
     * Resolves false when the deadline passed first: the caller should exit non-zero.
     */
    async close(opts: { deadlineMs?: number } = {}): Promise<boolean> {
      closingDeadline = Date.now() + (opts.deadlineMs ?? 10_000);
      const all = (async () => {
        const pending = stops.splice(0).reverse();
        const results = await Promise.allSettled(pending.map(({ stop }) => stop()));
        results.forEach((r, i) => r.status === 'rejected' && log.error(`stopping ${pending[i]!.name} failed`, { error: describeError(r.reason) }));
        server = null;
        metricsServer = null;
        for (const fn of cleanups.splice(0).reverse()) await fn();
      })();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), Math.max(0, closingDeadline! - Date.now()))));
      try {
        return await Promise.race([all.then(() => true as const), late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export type App = Awaited<ReturnType<typeof createApp>>;
