import { hostname } from 'node:os';
import { methodPolicy, revealSecrets } from './config/load.ts';
import { storeTarget, databaseFile } from './db/paths.ts';
import type { Method } from './domain/methods.ts';
import { DEFAULT_POLICY } from './domain/payment-policy.ts';
import type { Intent } from './domain/intent.ts';
import { createPrometheusMetrics } from './metrics/prometheus.ts';
import { builtinMethods, createSources } from './methods/registry.ts';
import { createSandboxSource } from './methods/sandbox/source.ts';
import type { UpiSection } from './methods/upi/config.ts';
import type { PaymentSource } from './methods/source.ts';
import { createEventFeed } from './services/event-feed.ts';
import { createEventService } from './services/events.ts';
import { createIntentCancellation } from './services/intent-cancel.ts';
import { createIntentListing } from './services/intent-list.ts';
import { createIntentService } from './services/intents.ts';
import { createKeyring } from './services/keys.ts';
import { createLedger } from './services/ledger.ts';
import { createMailboxTokenStore } from './services/mailbox-tokens.ts';
import { createMerchantService } from './services/merchants.ts';
import { createOutbox } from './services/outbox.ts';
import { createPaymentQueries } from './services/payments.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';
import { createWebhookPost } from './webhooks/target.ts';
import { createSettlementService } from './services/settlement.ts';
import { createHeldPayments } from './services/held-payments.ts';
import { moneyOfOne } from './services/intent-money.ts';
import { createDoctor } from './services/doctor.ts';
import { createUpiSilence } from './services/upi-silence.ts';
import { createOperatorActions } from './services/operator-actions.ts';
import { createConsoleAccess } from './services/console-access.ts';
import { createConsoleViews } from './services/console-views.ts';
import type { SourcesReport } from './http/console/pages/sources.ts';
import { isDown } from './workers/source-health.ts';
import { serveApi, type Serving } from './app/http.ts';
import { createLeaderWork, positionKey } from './app/lead.ts';
import { lagLimit, methodDeposits } from './app/methods.ts';
import { createReadiness, type WorkerSet } from './app/readiness.ts';
import { closeWithin, type Stop } from './app/shutdown.ts';
import { openAppStore } from './app/store.ts';
import { LEASE_DEFAULTS, startWorkers } from './app/workers.ts';
import { showAmountWith } from './app/notify.ts';
import { createNotifications } from './services/notify/index.ts';
import { runNotifications } from './workers/notify.ts';
import type { AppOptions } from './app/options.ts';
import { createPricing } from './pricing/index.ts';

export type { AppOptions };

/**
 * The composition root: builds every part from the config and opens (and migrates) the
 * database; upstreams and the HTTP listener start only in `start()`. `close()` releases
 * everything, in reverse order.
 */
export async function createApp(o: AppOptions) {
  const { config, random, log } = o;
  const methods = o.methods ?? builtinMethods;
  const decimalsOf = (method: Method): number => methods.of(method).rules.decimals;
  const sandbox = o.sandbox ?? false;
  const livemode = !sandbox;
  const target = storeTarget(config, sandbox);
  const cleanups: Array<() => Promise<void> | void> = [];
  const { db, clock, store, wakeups, dbFile } = await openAppStore({ target, clock: o.clock, databaseClock: o.databaseClock, log }, cleanups);

  // UPI silence is read from the ledger: every process (leader or standby) reports the same.
  const upi = config.methods.UPI as UpiSection | undefined;
  const upiSilence = upi && !sandbox ? createUpiSilence({ db, clock, accounts: upi.accounts, expectAlertWithinHours: upi.expectAlertWithinHours }) : null;

  // Fiat prices: the rate cache every process reads; the leader refreshes it (lead()).
  const pricing = createPricing(config.pricing, { db, clock, log: log.child({ component: 'rates' }) });
  // Read at scrape time: the running sources' health and the lease role (set by start()).
  let workerSet: WorkerSet = null;
  const metrics = createPrometheusMetrics({
    sources: () => (workerSet?.role() === 'leader' ? workerSet.health.map((h) => ({ key: h.key, up: !isDown(h.status()), lastOkAt: h.lastOkAt, lagMs: h.lagMs() })) : []),
    leader: () => workerSet?.role() === 'leader',
    now: () => clock.now(),
    upiAlerts: upiSilence ? async () => (await upiSilence.status()).accounts : undefined,
    rates: () => pricing.book.status(),
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
  const deposits = methodDeposits(config, sandbox, methods);
  // Sandbox methods without a config section get the defaults over their sandbox amounts.
  const policies = (m: Method) => config.policies[m] ?? (deposits[m] ? methodPolicy(m, decimalsOf(m), {}, deposits[m].amounts) : DEFAULT_POLICY);
  const intents = createIntentService({
    pricing: { book: pricing.book, quoteSeconds: config.pricing.quoteSeconds, retryAfterSeconds: Math.ceil(config.pricing.refreshSeconds) },
    db,
    store,
    clock,
    random,
    methods: deposits,
    registry: methods,
    ttlSeconds: config.intents.ttlSeconds,
    amountReuseCooldownSeconds: config.intents.amountReuseCooldownSeconds,
    livemode,
    publicUrl,
    outbox,
    metrics,
    log: log.child({ component: 'intents' }),
  });
  const ledger = createLedger({ db, clock, random, log: log.child({ component: 'ledger' }), outbox, livemode, publicUrl, metrics, decimalsOf, policies });
  const events = createEventService({ db, clock, outbox });
  const view = () => ({ now: clock.now(), livemode, publicUrl, decimalsOf });
  const listing = createIntentListing({ db, view });
  const cancels = createIntentCancellation({ db, outbox, view });
  const feed = createEventFeed({ db });
  const payments = createPaymentQueries({ db, methods });
  const settlement = createSettlementService({ db, ledger, intents, methods, clock });
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

  const sourceDeps = { ledger, db, clock, random, log: log.child({ component: 'source' }), upstreamMetrics: metrics };
  const sandboxSource = createSandboxSource(db, sourceDeps);
  const actions = createOperatorActions({ merchants, events, dispatcher, intents, payments, sandboxSource, methods, random, waitForOtherMs: config.webhooks.timeoutSeconds * 1000 + 5000 });
  // Telegram / e-mail to the shopkeeper (live only: the sandbox is a merchant developer's playground).
  const notifications = sandbox
    ? null
    : createNotifications({ config, db, clock, random, log: log.child({ component: 'notify' }), upiSilence, held: heldPayments, show: showAmountWith(methods), sources: () => (workerSet?.role() === 'leader' ? workerSet.health : []) });
  if (notifications) cleanups.push(() => notifications.close());
  const mailboxTokens = createMailboxTokenStore({ db, keys, clock, random });
  // Async: a method's libraries load only when its source is built (see methods/registry.ts).
  const sources = async (): Promise<PaymentSource[]> => (o.sources ? o.sources({ ledger, db }) : sandbox ? [sandboxSource] : createSources(config, methods, { ...sourceDeps, mailboxTokens }));
  const doctor = createDoctor({
    dbFile,
    db,
    livemode,
    methods: Object.keys(config.amounts),
    sources,
    upiSilence,
    clock,
    // What the worker leader last recorded (every 5 s), and the limit it is held to.
    rates: () => pricing.book.status(),
    lag: async (key) => ({ asOf: (await ledger.loadCheckpoint<{ asOf?: number }>(positionKey(key)))?.asOf, maxLagMs: sandbox ? undefined : lagLimit(config, key) }),
  });

  const serving: Serving = { server: null, metricsServer: null, sockets: null };
  // The operator console (server.console): who may sign in, and what its pages read.
  const consoleAccess = createConsoleAccess({ db, clock, random, idleMs: config.server.console.idleMinutes * 60_000 });
  const consoleViews = createConsoleViews({ db });
  /**
   * The address the operator's browser shows: passkeys are bound to its host name, so it is
   * never 127.0.0.1 (an IP address cannot hold a passkey): server.console.origin, else
   * server.publicUrl, else http://localhost:<port>.
   */
  const consoleOrigin = (): string =>
    (config.server.console.origin ?? config.server.publicUrl ?? `http://localhost:${serving.server?.port ?? config.server.port}`).replace(/\/+$/, '');
  /** The Sources page: live states when this process leads, else what the leader recorded. */
  const consoleSources = async (): Promise<SourcesReport> => {
    const role = workerSet ? workerSet.role() : 'off';
    const live = role === 'leader' && workerSet ? workerSet.health.map((h) => ({ key: h.key, name: h.name, status: h.status() })) : [];
    const keys = sandbox ? [] : Object.keys(config.amounts);
    const recorded = await Promise.all(keys.map(async (key) => ({ key, asOf: (await ledger.loadCheckpoint<{ asOf?: number }>(positionKey(key)))?.asOf, maxLagMs: lagLimit(config, key) })));
    const s = upiSilence ? await upiSilence.status() : null;
    return { workers: role, live, recorded, upi: s ? { accounts: s.accounts, silent: s.silent } : null };
  };

  const abort = new AbortController();
  /** Stops of what start() started, registered as each starts; close() runs them newest first. */
  const stops: Stop[] = [];
  /** Epoch ms by which close() must be done; set when closing starts. */
  let closingDeadline: number | null = null;
  // Notifications run in their own loops: a slow Telegram or SMTP server never holds up settlement or webhooks.
  const notify = notifications ? (signal: AbortSignal) => runNotifications(notifications, { signal, log: log.child({ component: 'notify' }), random, wakeups }) : undefined;
  const rates = pricing.refresher ? { run: pricing.refresher.run, intervalMs: config.pricing.refreshSeconds * 1000 } : null;
  const lead = createLeaderWork({ dispatcher, ledger, intents, log, random, webhookTimeoutMs: config.webhooks.timeoutSeconds * 1000, closingDeadline: () => closingDeadline, rates, also: notify });
  const readiness = createReadiness({ workers: () => workerSet, upiSilence, rates: () => pricing.book.status() });

  return {
    config,
    clock,
    random,
    log,
    db,
    livemode,
    dbFile,
    methods,
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
    notifications,
    doctor,
    sources,
    publicUrl,
    consoleAccess,
    consoleViews,
    consoleOrigin,
    readiness,
    pricing,

    /**
     * The API first (a port that cannot be bound fails here, before any worker starts), then
     * the workers: they run only while this process holds the database's worker lease.
     * On failure, close() releases whatever was started.
     */
    async start(opts: { http: boolean; workers: boolean }): Promise<void> {
      // Refuse another master key (and missing secrets) before serving or sending anything.
      await keys.get();
      if (opts.workers) revealSecrets(config.methods);
      if (opts.workers && notifications) revealSecrets(config.notifications ?? {});
      // Built (their modules loaded) before the port is bound, started only after: building connects nothing.
      const toRun = opts.workers ? await sources() : [];
      let listening: string | null = null;
      if (opts.http) {
        const console = {
          access: consoleAccess,
          views: consoleViews,
          intents,
          payments,
          events,
          merchants,
          sources: consoleSources,
          cancels,
          replays: events,
          settlement,
          held: heldPayments,
          heldActions: heldPayments,
          merchantActions: merchants,
          clock,
          log: log.child({ component: 'console' }),
          livemode,
          origin: consoleOrigin,
        };
        const parts = { config, methods, intents, merchants, listing, cancels, heldPayments, money: (i: Intent) => moneyOfOne(db, i), feed, publicUrl, livemode, clock, log, metrics, wakeups, readiness, console };
        listening = await serveApi(parts, serving, stops, () => closingDeadline);
      }
      if (opts.workers) {
        const parts = { db, clock, log, wakeups, dispatcher, me, lead, timing: { ...LEASE_DEFAULTS, ...o.lease }, lagLimit: (method: string | undefined) => (sandbox ? undefined : lagLimit(config, method)) };
        await startWorkers(parts, toRun, stops, abort.signal, () => abort.abort(), (w) => (workerSet = w));
      }
      // Logged once everything is up (the workers' first lease attempt included).
      if (listening) log.info('payd listening', { url: listening, livemode, database: dbFile });
    },

    /** Open checkout websockets and intents watched for them. */
    liveSockets: () => serving.sockets?.stats() ?? { sockets: 0, watchers: 0 },

    get url(): string | null {
      return serving.server?.url ?? null;
    },

    /** The metrics listener (server.metrics.listen), when configured and serving. */
    get metricsUrl(): string | null {
      return serving.metricsServer?.url ?? null;
    },

    /**
     * Stops the API and the workers together (in-flight requests and deliveries finish, the
     * lease is released), then closes the database, all within one deadline (default 10 s).
     * Resolves false when the deadline passed first: the caller should exit non-zero.
     */
    async close(opts: { deadlineMs?: number } = {}): Promise<boolean> {
      closingDeadline = Date.now() + (opts.deadlineMs ?? 10_000);
      return closeWithin(closingDeadline, stops, cleanups, log, () => {
        serving.server = null;
        serving.metricsServer = null;
      });
    },
  };
}

export type App = Awaited<ReturnType<typeof createApp>>;
