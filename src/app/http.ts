import type { Intent, IntentMoney } from '../domain/intent.ts';
import type { Config } from '../config/read.ts';
import type { Wakeups } from '../domain/ports.ts';
import type { HttpDeps } from '../http/app.ts';
import type { CheckoutSockets } from '../http/checkout/index.ts';
import type { Readiness } from '../http/ops.ts';
import { createRateLimiter } from '../http/rate-limit.ts';
import type { RunningServer } from '../http/server.ts';
import type { PrometheusMetrics } from '../metrics/prometheus.ts';
import type { ConsoleDeps } from '../http/console/routes.ts';
import { payeeNameOf } from './methods.ts';
import type { Stop } from './shutdown.ts';

/** What the API needs from the composition root (HttpDeps' services), plus what serving it takes. */
export interface HttpParts extends Pick<HttpDeps, 'methods' | 'intents' | 'merchants' | 'listing' | 'cancels' | 'heldPayments' | 'feed' | 'links' | 'publicUrl' | 'clock' | 'log'> {
  config: Config;
  /** The payments on an intent, for the checkout's held-payment note. */
  money: (intent: Intent) => Promise<IntentMoney>;
  livemode: boolean;
  metrics: PrometheusMetrics;
  wakeups: Wakeups;
  readiness: () => Promise<Readiness>;
  /** The operator console's parts (served under /console when server.console.enabled). */
  console: Omit<ConsoleDeps, 'clientAddress' | 'limiter' | 'secure'>;
}

/** What is serving; each field is set as soon as it serves (close() then stops it even if a later part failed). */
export interface Serving {
  server: RunningServer | null;
  metricsServer: { url: string } | null;
  sockets: CheckoutSockets | null;
}

/**
 * The API, checkout and ops routes on one listener (and /metrics on its own, when configured).
 * Each part's stop is registered as it starts; in-flight requests get until shortly before the
 * closing deadline.
 */
export async function serveApi(deps: HttpParts, serving: Serving, stops: Stop[], closingDeadline: () => number | null): Promise<string> {
  const { config, clock, log, metrics } = deps;
  // Loaded only to serve: every CLI command builds the app too, and h3 cost each one's
  // start-up (its web Headers alone make Node compile its own fetch: 32 ms in a profile).
  const [{ createHttpApp }, { createCheckoutSockets, registerCheckout }, { registerOps, serveMetrics }, { serveHttp }, { createClientAddress, addressMatcher }, { registerLinkPages }, consoleModule] = await Promise.all([
    import('../http/app.ts'),
    import('../http/checkout/index.ts'),
    import('../http/ops.ts'),
    import('../http/server.ts'),
    import('../http/client-address.ts'),
    import('../http/links/routes.ts'),
    // Loaded only when turned on (server.console.enabled; off by default).
    config.server.console.enabled ? import('../http/console/routes.ts') : null,
  ]);
  // Behind a trusted reverse proxy, the client is read from X-Forwarded-For: every per-IP limit counts it.
  const clientAddress = createClientAddress(config.server.trustedProxies, (peer) =>
    log.warn('requests arrive through a proxy on this host, but server.trustedProxies is empty: every client behind it shares one per-IP bucket', { peer }),
  );
  const metricsEndpoint = { text: () => metrics.registry.metrics(), contentType: metrics.registry.contentType, allow: config.server.metrics.allow, listen: config.server.metrics.listen };
  const checkoutLog = log.child({ component: 'checkout' });
  // One per-IP bucket for all anonymous traffic: API, checkout page and its websocket.
  const publicLimiter = createRateLimiter({ ...config.server.publicRateLimit, clock });
  const { methods, intents, merchants, livemode } = deps;
  const app = createHttpApp({
    methods,
    intents,
    merchants,
    listing: deps.listing,
    cancels: deps.cancels,
    heldPayments: deps.heldPayments,
    feed: deps.feed,
    links: deps.links,
    publicUrl: deps.publicUrl,
    rateLimiter: createRateLimiter({ ...config.server.rateLimit, clock }),
    publicLimiter,
    clientAddress,
    clock,
    log: log.child({ component: 'http' }),
    extend: (h3) => {
      registerOps(h3, { readiness: deps.readiness, log: log.child({ component: 'http' }), metrics: metricsEndpoint });
      registerCheckout(h3, { money: deps.money, intents, merchants, methods, clock, log: checkoutLog, livemode, limiter: publicLimiter, clientAddress, payeeName: payeeNameOf(config, methods) });
      registerLinkPages(h3, {
        links: deps.links,
        methods,
        payeeName: payeeNameOf(config, methods),
        livemode,
        log: checkoutLog,
        limiter: publicLimiter,
        perLink: createRateLimiter({ ...config.links.rateLimit, clock }),
        clientAddress,
        publicUrl: deps.publicUrl,
      });
      if (consoleModule) {
        const trusted = addressMatcher(config.server.trustedProxies);
        const origin = deps.console.origin;
        consoleModule.registerConsole(h3, {
          ...deps.console,
          clientAddress,
          limiter: publicLimiter,
          // HTTPS as the browser sees it: the configured origin, or a trusted proxy's X-Forwarded-Proto.
          secure: (req) => origin().startsWith('https:') || (trusted(req.socket?.remoteAddress ?? undefined) && String(req.headers['x-forwarded-proto'] ?? '').split(',').at(-1)?.trim() === 'https'),
        });
      }
    },
  });
  metrics.collectProcessMetrics();
  const sockets = createCheckoutSockets({
    intents,
    clock,
    log: checkoutLog,
    limiter: publicLimiter,
    clientAddress,
    maxPerIntent: config.server.liveSockets.perIntent,
    maxTotal: config.server.liveSockets.total,
    wakeups: deps.wakeups,
  });
  serving.sockets = sockets;
  const running = await serveHttp(app, config.server.host, config.server.port, sockets);
  serving.server = running;
  stops.push({ name: 'http', stop: () => running.close(Math.max(0, (closingDeadline() ?? Date.now() + 8000) - Date.now() - 1000)) });
  const listen = metricsEndpoint.listen;
  if (listen) {
    const m = await serveMetrics({ ...metricsEndpoint, listen });
    serving.metricsServer = m;
    stops.push({ name: 'metrics', stop: () => m.close() });
  }
  return running.url;
}
