import type { Config } from '../config/read.ts';
import type { Db } from '../db/open.ts';
import type { MethodSilence } from '../methods/method.ts';
import type { Clock, Logger, Random } from '../domain/ports.ts';
import { shopTime } from '../domain/shop-time.ts';
import type { SourcesReport } from '../http/console/pages/sources.ts';
import { createConsoleAccess } from '../services/console-access.ts';
import { createConsoleViews } from '../services/console-views.ts';
import type { PaydLedger } from '../services/ledger/index.ts';
import type { HttpParts } from './http.ts';
import { positionKey } from './lead.ts';
import { lagLimit } from './methods.ts';
import type { WorkerSet } from './readiness.ts';

/** The operator console (server.console): who may sign in, and what its pages read. */
export function createConsoleParts(deps: {
  config: Config;
  db: Db;
  clock: Clock;
  random: Random;
  sandbox: boolean;
  ledger: PaydLedger;
  silences: readonly MethodSilence[];
  /** The running workers (null until start() started them). */
  workers: () => WorkerSet;
  /** The port the API listens on, once it does. */
  port: () => number | undefined;
  /** Each priced pair's rate now (the sandbox's simulated ones when it has no pairs). */
  rates: () => Promise<Array<{ pair: string; rate: string | null; source: string | null }>>;
  /** Every method, for the sandbox's Sources page (each simulated there). */
  methods: ReadonlyArray<{ id: string; checkout: { label: string } }>;
}) {
  const { config, db, clock, random, sandbox, ledger, silences } = deps;
  const access = createConsoleAccess({ db, clock, random, idleMs: config.server.console.idleMinutes * 60_000, maxSessionMs: config.server.console.maxSessionHours * 3_600_000 });
  const views = createConsoleViews({ db });
  /**
   * The address the operator's browser shows: passkeys are bound to its host name, so it is
   * never 127.0.0.1 (an IP address cannot hold a passkey): server.console.origin, else
   * server.publicUrl, else http://localhost:<port>.
   */
  const origin = (): string => (config.server.console.origin ?? config.server.publicUrl ?? `http://localhost:${deps.port() ?? config.server.port}`).replace(/\/+$/, '');
  /** The Sources page: live states when this process leads, else what the leader recorded. */
  const sources = async (): Promise<SourcesReport> => {
    const workerSet = deps.workers();
    const role = workerSet ? workerSet.role() : 'off';
    const live = role === 'leader' && workerSet ? workerSet.health.map((h) => ({ key: h.key, name: h.name, status: h.status() })) : [];
    const keys = sandbox ? [] : Object.keys(config.amounts);
    const recorded = await Promise.all(keys.map(async (key) => ({ key, asOf: (await ledger.loadCheckpoint<{ asOf?: number }>(positionKey(key)))?.asOf, maxLagMs: lagLimit(config, key) })));
    const alerts = await Promise.all(silences.map(async (w) => ({ method: w.method, ...(({ accounts, silent }) => ({ accounts, silent }))(await w.status()) })));
    const rates = (await deps.rates()).map(({ pair, rate, source }) => ({ pair, rate, source }));
    return { workers: role, live, recorded, alerts, rates, sandbox: sandbox ? { methods: deps.methods.map((m) => ({ id: m.id, label: m.checkout.label })) } : null };
  };
  const time = shopTime(config.shopTimeZone, () => clock.now());
  return { access, views, origin, sources, time };
}

export type ConsoleParts = ReturnType<typeof createConsoleParts>;

type Served = HttpParts['console'];

/** The services the console's pages read and its actions call (the CLI's own). */
export interface ConsoleServices {
  intents: Served['intents'];
  payments: Served['payments'];
  events: Served['events'] & Served['replays'];
  merchants: Served['merchants'] & Served['merchantActions'];
  cancels: Served['cancels'];
  manualSettlement: Served['manualSettlement'];
  heldPayments: Served['held'] & Served['heldActions'];
  links: Served['links'] & Served['linkActions'];
  clock: Clock;
  log: Logger;
  livemode: boolean;
}

/** What the console is served with: built by start(), only when it serves HTTP. */
export function consoleRoutes(parts: ConsoleParts, services: ConsoleServices): Served {
  return {
    access: parts.access,
    views: parts.views,
    intents: services.intents,
    payments: services.payments,
    events: services.events,
    merchants: services.merchants,
    sources: parts.sources,
    time: parts.time,
    cancels: services.cancels,
    replays: services.events,
    manualSettlement: services.manualSettlement,
    held: services.heldPayments,
    heldActions: services.heldPayments,
    merchantActions: services.merchants,
    links: services.links,
    linkActions: services.links,
    clock: services.clock,
    log: services.log.child({ component: 'console' }),
    livemode: services.livemode,
    origin: parts.origin,
  };
}
