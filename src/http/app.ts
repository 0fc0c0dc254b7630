import type { MethodRegistry } from '../methods/registry.ts';
import { H3, type H3Event } from 'h3';
import { PaydError } from '../domain/errors.ts';
import type { Clock, Logger, RequestLogEntry } from '../domain/ports.ts';
import type { IntentService } from '../services/intents/index.ts';
import type { Merchant, MerchantService } from '../services/merchants/index.ts';
import type { Awaitable } from '../domain/awaitable.ts';
import { authenticate } from './auth.ts';
import { errorReply, jsonReply, type JsonReply } from './errors.ts';
import { clientKey, type RateLimiter } from './rate-limit.ts';
import type { PeerRequest } from './client-address.ts';
import type { RouteContext, RouteHandler } from './routes/kit.ts';
import { eventRoutes } from './routes/events.ts';
import { intentRoutes } from './routes/intents.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { webhookEndpointRoutes } from './routes/webhook-endpoint.ts';
import { paymentLinkRoutes } from './routes/payment-links.ts';
import type { LinkService } from '../services/links/index.ts';
import type { EventFeed } from '../services/events/feed.ts';
import type { IntentCancellation } from '../services/intents/cancel.ts';
import type { IntentListing } from '../services/intents/list.ts';
import type { HeldPayments } from '../services/held-payments.ts';

export interface HttpDeps {
  /** Every method this payd knows: the list filter and the API document name them. */
  methods: MethodRegistry;
  intents: IntentService;
  merchants: MerchantService;
  listing: IntentListing;
  cancels: IntentCancellation;
  /** Held payments: accept / refunded. */
  heldPayments: HeldPayments;
  feed: EventFeed;
  links: LinkService;
  /** Base of the public address (the OpenAPI document's server). */
  publicUrl: string;
  rateLimiter: RateLimiter;
  /** Per client IP, for every request without valid credentials (server.publicRateLimit). */
  publicLimiter: RateLimiter;
  /** The client's address (server.trustedProxies decides whether X-Forwarded-For counts). */
  clientAddress: (req: PeerRequest) => string | undefined;
  clock: Clock;
  log: Logger;
  /** Extra routes (the checkout page) mounted by the composition root. */
  extend?: (app: H3) => void;
}

/** The HTTP adapter. It never listens: serving is done by http/server.ts (tests can call app.fetch). */
export function createHttpApp(deps: HttpDeps): H3 {
  // Malformed percent-encoding reaches our routes (and their JSON errors) instead of h3's plain 400.
  const app = new H3({ silent: true, allowMalformedURL: true });

  const logRequest =
    deps.log.request?.bind(deps.log) ??
    ((e: RequestLogEntry) => deps.log.info('request', { method: e.method, path: e.path, status: e.status, ms: e.ms, client_id: e.clientId }));

  const throttleAnonymous = (event: H3Event): void => {
    const req = event.runtime?.node?.req;
    const wait = deps.publicLimiter.take(clientKey(req ? deps.clientAddress(req) : undefined));
    if (wait > 0) throw new PaydError('RATE_LIMITED', 'too many requests from this address; slow down', { retryAfter: wait });
  };

  /** Every failure as a JSON error body, never a stack trace. */
  const failure = (event: H3Event, err: unknown): JsonReply => {
    if (!(err instanceof PaydError)) deps.log.error('request failed', { path: event.url.pathname, error: err instanceof Error ? err.stack : String(err) });
    return errorReply(err);
  };
  const finish = (event: H3Event, ctx: RouteContext, started: number, res: JsonReply): JsonReply => {
    logRequest({ method: event.req.method, path: event.url.pathname, status: res.code, ms: deps.clock.now() - started, clientId: ctx.merchant?.clientId });
    return res;
  };
  // A failed authentication is anonymous traffic: it spends the caller's IP bucket, never a
  // merchant's, so a valid merchant is not slowed by someone else's guesses.
  const refuse = (event: H3Event, err: unknown): never => {
    if (err instanceof PaydError && (err.code === 'AUTH_INVALID_SECRET' || err.code === 'AUTH_INVALID_HEADERS')) throttleAnonymous(event);
    throw err;
  };
  const asMerchant = (event: H3Event, ctx: RouteContext, merchant: Merchant, handler: RouteHandler): Awaitable<JsonReply> => {
    ctx.merchant = merchant;
    const wait = deps.rateLimiter.take(merchant.clientId);
    if (wait > 0) throw new PaydError('RATE_LIMITED', 'too many requests; slow down', { retryAfter: wait });
    return handler(event, ctx);
  };
  /** Credentials and rate limits, then the handler: synchronous as long as each step is (a cached merchant, a SQLite read). */
  const admit = (event: H3Event, ctx: RouteContext, handler: RouteHandler, auth: boolean): Awaitable<JsonReply> => {
    if (!auth) {
      throttleAnonymous(event);
      return handler(event, ctx);
    }
    let merchant: Awaitable<Merchant>;
    try {
      merchant = authenticate(event, deps.merchants);
    } catch (err) {
      return refuse(event, err);
    }
    if (merchant instanceof Promise) return merchant.then((m) => asMerchant(event, ctx, m, handler), (err) => refuse(event, err));
    return asMerchant(event, ctx, merchant, handler);
  };

  /** Wraps a route: one log line, every failure as a JSON error body. */
  const route = (handler: RouteHandler, opts: { auth: boolean }) => (event: H3Event): Awaitable<JsonReply> => {
    const started = deps.clock.now();
    const ctx: RouteContext = {};
    let res: Awaitable<JsonReply>;
    try {
      res = admit(event, ctx, handler, opts.auth);
    } catch (err) {
      res = failure(event, err);
    }
    if (res instanceof Promise) return res.then((r) => finish(event, ctx, started, r), (err) => finish(event, ctx, started, failure(event, err)));
    return finish(event, ctx, started, res);
  };

  const notAllowed = (allow: string) =>
    route(async () => {
      throw new PaydError('METHOD_NOT_ALLOWED', `method not allowed here; use ${allow}`);
    }, { auth: false });

  // The merchant API, one file per resource: its request schemas and its routes.
  const kit = { route, notAllowed };
  intentRoutes(app, kit, deps);
  webhookEndpointRoutes(app, kit, deps);
  eventRoutes(app, kit, deps);
  paymentLinkRoutes(app, kit, deps);
  openApiRoutes(app, kit, deps);

  app.get('/healthz', route(async () => jsonReply({ ok: true }), { auth: false }));

  deps.extend?.(app);

  app.all(
    '/**',
    route(async (event) => {
      throw new PaydError('NOT_FOUND', `no route for ${event.req.method} ${event.url.pathname}`);
    }, { auth: false }),
  );
  return app;
}
