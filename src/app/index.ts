import { hostname } from 'node:os';
import { revealSecrets } from '../config/read.ts';
import { storeTarget, databaseFile } from '../db/paths.ts';
import type { Intent } from '../domain/intent.ts';
import { builtinMethods, createSilences, createSources, pricingPegs } from '../methods/registry.ts';
import { createSandboxSource } from '../methods/sandbox-source.ts';
import type { PaymentSource } from '../methods/source.ts';
import { createPricing } from '../pricing/index.ts';
import { createDoctor } from '../services/doctor.ts';
import { moneyOfOne } from '../services/intents/money.ts';
import { createKeyring } from '../services/keys.ts';
import { createMailboxTokenStore } from '../services/mailbox-tokens.ts';
import { createNotifications } from '../services/notify/index.ts';
import { botLinks } from './links.ts';
import { createNotificationCheck } from '../services/notify/check.ts';
import { createOperatorActions } from '../services/operator-actions.ts';
import { runNotifications } from '../workers/notify.ts';
import { consoleRoutes, createConsoleParts } from './console.ts';
import { serveApi, type Serving } from './http.ts';
import { createLeaderWork, positionKey, type RecordedPosition } from './lead.ts';
import { createAppMetrics } from './metrics.ts';
import { lagLimit } from './methods.ts';
import { showAmountWith, unmatchedPlanWith } from './notify.ts';
import type { AppOptions } from './options.ts';
import { createReadiness, type WorkerSet } from './readiness.ts';
import { createServices } from './services.ts';
import { closeWithin, type Stop } from './shutdown.ts';
import { openAppStore } from './store.ts';
import { createWebhookDelivery } from './webhooks.ts';
import { LEASE_DEFAULTS, startWorkers } from './workers.ts';

export type { AppOptions };

/**
 * The composition root: builds every part from the config and opens (and migrates) the
 * database; upstreams and the HTTP listener start only in `start()`. `close()` releases
 * everything, in reverse order.
 */
export async function createApp(options: AppOptions) {
  const { config, random, log } = options;
  const methods = options.methods ?? builtinMethods;
  const sandbox = options.sandbox ?? false;
  const livemode = !sandbox;
  const target = storeTarget(config, sandbox);
  const cleanups: Array<() => Promise<void> | void> = [];
  const { db, clock, store, wakeups, dbFile } = await openAppStore({ target, clock: options.clock, databaseClock: options.databaseClock, log }, cleanups);

  // Silence (UPI's mailbox) is read from the ledger: every process (leader or standby) reports the same.
  const silences = sandbox ? [] : createSilences(config, methods, { db, clock });

  // Fiat prices: the rate cache every process reads; the leader refreshes it (lead()). A sandbox
  // with no pair configured quotes fixed simulated rates instead, so prices can be tried before
  // any source is set up; one with pairs asks their sources, as the live daemon would.
  const simulated = sandbox && Object.keys(config.pricing.pairs).length === 0;
  const pricing = createPricing(config.pricing, { db, clock, log: log.child({ component: 'rates' }), pegs: pricingPegs(methods), simulated });
  // The running workers, set by start(): metrics, readiness and the console read them.
  let workerSet: WorkerSet = null;
  const workers = () => workerSet;
  const metrics = createAppMetrics({ workers, clock, silences, rates: () => pricing.book.status() });

  // Read at first use: commands that need no key never ask for one (systemd credentials).
  // With PostgreSQL the key is configured (config/read.ts requires it): there is no file beside the database.
  const keys = createKeyring({ db, configured: config.server.masterKey, keyFile: `${target.kind === 'sqlite' ? target.file : databaseFile(config, false)}.key`, random, clock });
  const publicUrl = (config.server.publicUrl ?? `http://${config.server.host}:${config.server.port}`).replace(/\/+$/, '');
  // The sandbox delivers to loopback (the demo's --webhook-url to a local receiver); a live
  // daemon only when its operator says so: a merchant must not reach the daemon's own host.
  const allowLoopback = config.webhooks.allowLoopback || sandbox;
  const { merchants, intents, ledger, events, listing, cancels, feed, payments, manualSettlement, heldPayments, links } = createServices({ config, methods, sandbox, livemode, db, store, clock, random, log, wakeups, pricing, metrics, keys, publicUrl, allowLoopback });
  // Random per start: a restarted process is a new holder even if its pid repeats.
  const me = { holder: random.uuid(), host: hostname(), pid: process.pid };
  const dispatcher = createWebhookDelivery({ config, db, holder: me.holder, metrics, merchants, clock, random, log, post: options.post, allowLoopback }, cleanups);

  const sourceDeps = { ledger, db, clock, random, log: log.child({ component: 'source' }), upstreamMetrics: metrics };
  const sandboxSource = createSandboxSource(db, sourceDeps);
  const actions = createOperatorActions({ merchants, events, dispatcher, intents, payments, sandboxSource, methods, random, waitForOtherMs: config.webhooks.timeoutSeconds * 1000 + 5000 });
  // Telegram / e-mail to the shopkeeper (live only: the sandbox is a merchant developer's playground).
  const notifications = sandbox
    ? null
    : createNotifications({ config, db, clock, random, log: log.child({ component: 'notify' }), silences, held: heldPayments, links: botLinks(links), show: showAmountWith(methods), unmatched: unmatchedPlanWith(methods, config.notifications?.unmatched), sources: () => (workerSet?.role() === 'leader' ? workerSet.health : []) });
  if (notifications) cleanups.push(() => notifications.close());
  // `payd notify test` and doctor: each channel asked directly, with the clients the sender uses.
  const notificationCheck = createNotificationCheck(config.notifications);
  const mailboxTokens = createMailboxTokenStore({ db, keys, clock, random });
  // Async: a method's libraries load only when its source is built (see methods/registry.ts).
  const sources = async (): Promise<PaymentSource[]> => (options.sources ? options.sources({ ledger, db }) : sandbox ? [sandboxSource] : createSources(config, methods, { ...sourceDeps, mailboxTokens }));
  const doctor = createDoctor({
    dbFile,
    db,
    livemode,
    methods: Object.keys(config.amounts),
    sources,
    silences,
    clock,
    // What the worker leader last recorded (every 5 s), and the limit it is held to.
    rates: () => pricing.book.status(),
    loneSources: () => pricing.loneSources(Object.keys(config.amounts).flatMap((id) => methods.get(id) ?? []).map((m) => ({ id: m.id, unit: m.rules.unit }))),
    // The sandbox sends no notification, so there is nothing of it to check there.
    notifications: sandbox ? undefined : notificationCheck.check,
    pricing: { units: [...new Set(methods.list.filter((m) => Object.hasOwn(config.amounts, m.id)).map((m) => m.rules.unit))], unconfigured: pricing.book.unconfigured },
    lag: async (key) => {
      const recorded = await ledger.loadCheckpoint<RecordedPosition>(positionKey(key));
      return { asOf: recorded?.asOf, reached: recorded?.reached, error: recorded?.error, maxLagMs: sandbox ? undefined : lagLimit(config, key) };
    },
  });

  const serving: Serving = { server: null, metricsServer: null, sockets: null };
  const consoleParts = createConsoleParts({ config, db, clock, random, sandbox, ledger, silences, workers, port: () => serving.server?.port, rates: () => pricing.book.status(), methods: methods.list });

  const abort = new AbortController();
  /** Stops of what start() started, registered as each starts; close() runs them newest first. */
  const stops: Stop[] = [];
  /** Epoch ms by which close() must be done; set when closing starts. */
  let closingDeadline: number | null = null;
  // Notifications run in their own loops: a slow Telegram or SMTP server never holds up settlement or webhooks.
  const notify = notifications ? (signal: AbortSignal) => runNotifications(notifications, { signal, log: log.child({ component: 'notify' }), random, wakeups }) : undefined;
  const rates = pricing.refresher ? { run: pricing.refresher.run, intervalMs: config.pricing.refreshSeconds * 1000 } : null;
  const lead = createLeaderWork({ dispatcher, ledger, intents, log, random, webhookTimeoutMs: config.webhooks.timeoutSeconds * 1000, closingDeadline: () => closingDeadline, rates, also: notify });
  const readiness = createReadiness({ workers, silences, rates: () => pricing.book.status() });

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
    manualSettlement,
    links,
    dispatcher,
    sandboxSource,
    actions,
    notifications,
    notificationCheck,
    doctor,
    sources,
    publicUrl,
    consoleAccess: consoleParts.access,
    consoleViews: consoleParts.views,
    consoleOrigin: consoleParts.origin,
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
        const console = consoleRoutes(consoleParts, { intents, payments, events, merchants, cancels, manualSettlement, heldPayments, links, clock, log, livemode });
        const parts = { config, methods, intents, merchants, listing, cancels, heldPayments, money: (i: Intent) => moneyOfOne(db, i), feed, links, publicUrl, livemode, clock, log, metrics, wakeups, readiness, console };
        listening = await serveApi(parts, serving, stops, () => closingDeadline);
      }
      if (opts.workers) {
        const parts = { db, clock, log, wakeups, dispatcher, me, lead, timing: { ...LEASE_DEFAULTS, ...options.lease }, lagLimit: (method: string | undefined) => (sandbox ? undefined : lagLimit(config, method)) };
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
