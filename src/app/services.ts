import type { Config } from '../config/read.ts';
import type { IntentStore } from '../db/intent-store.ts';
import type { Db } from '../db/open.ts';
import type { Method } from '../domain/methods.ts';
import { methodLabels } from '../methods/method.ts';
import type { Clock, Logger, Random, Wakeups } from '../domain/ports.ts';
import type { PrometheusMetrics } from '../metrics/prometheus.ts';
import type { MethodRegistry } from '../methods/registry.ts';
import type { Pricing } from '../pricing/index.ts';
import { createEventFeed } from '../services/events/feed.ts';
import { createEventService } from '../services/events/operator.ts';
import { createHeldPayments } from '../services/held-payments.ts';
import { createIntentCancellation } from '../services/intents/cancel.ts';
import { createIntentListing } from '../services/intents/list.ts';
import { createIntentService } from '../services/intents/index.ts';
import type { Keyring } from '../services/keys.ts';
import { createLedger } from '../services/ledger/index.ts';
import { createMerchantService } from '../services/merchants/index.ts';
import { createOutbox } from '../services/events/outbox.ts';
import { createPaymentQueries } from '../services/payments.ts';
import { createManualSettlementService } from '../services/manual-settlement.ts';
import { createLinkService } from '../services/links/index.ts';
import { methodDeposits, methodPolicies } from './methods.ts';

export interface ServiceParts {
  config: Config;
  methods: MethodRegistry;
  sandbox: boolean;
  livemode: boolean;
  db: Db;
  store: IntentStore;
  clock: Clock;
  random: Random;
  log: Logger;
  wakeups: Wakeups;
  pricing: Pricing;
  metrics: PrometheusMetrics;
  keys: Keyring;
  publicUrl: string;
  /** Webhooks may target loopback (webhooks.allowLoopback; the sandbox). */
  allowLoopback: boolean;
}

/**
 * The services over the database that the API, the console, the CLI and the workers share:
 * merchants, intents, the ledger, and the queries and actions on what they recorded.
 */
export function createServices(deps: ServiceParts) {
  const { config, methods, sandbox, livemode, db, store, clock, random, log, pricing, metrics, publicUrl } = deps;
  const decimalsOf = (method: Method): number => methods.of(method).rules.decimals;
  const labelsOf = (method: Method) => methodLabels(methods.of(method));
  const outbox = createOutbox({ clock, random, wakeups: deps.wakeups });
  const merchants = createMerchantService({
    db,
    keys: deps.keys,
    clock,
    random,
    livemode,
    allowInsecureUrls: config.webhooks.allowInsecureUrls,
    allowLoopback: deps.allowLoopback,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    rotationGraceSeconds: config.webhooks.secretRotationGraceSeconds,
  });
  const deposits = methodDeposits(config, sandbox, methods);
  const policies = methodPolicies(config, deposits, decimalsOf);
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
  const ledger = createLedger({ db, clock, random, log: log.child({ component: 'ledger' }), outbox, livemode, publicUrl, metrics, decimalsOf, labelsOf, policies });
  const events = createEventService({ db, clock, outbox });
  const view = () => ({ now: clock.now(), livemode, publicUrl, decimalsOf, labelsOf });
  const listing = createIntentListing({ db, view });
  const cancels = createIntentCancellation({ db, outbox, view });
  const feed = createEventFeed({ db });
  const payments = createPaymentQueries({ db, methods });
  const manualSettlement = createManualSettlementService({ db, ledger, intents, methods, clock });
  const heldPayments = createHeldPayments({ db, ledger, view });
  const enabled = Object.keys(deposits);
  const links = createLinkService({ db, clock, random, intents, merchants, enabledMethods: () => enabled, publicUrl, maxOpenIntents: config.links.maxOpenIntents });
  return { merchants, intents, ledger, events, listing, cancels, feed, payments, manualSettlement, heldPayments, links };
}
