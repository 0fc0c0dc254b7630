import { isIP } from 'node:net';
import * as v from 'valibot';
import { NotificationsConfig } from './notifications.ts';
import { num, port, positive, SecretRef, seconds, httpUrl } from './parts.ts';
import { RATE_SOURCES } from '../domain/rates.ts';
import { isTimeZone } from '../domain/shop-time.ts';

/** "10.0.0.0/8", "2001:db8::/32" or a bare address. */
export function isCidr(s: string): boolean {
  const [addr, bits, extra] = s.split('/');
  const family = isIP(addr ?? '');
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}
const cidr = v.pipe(v.string(), v.check(isCidr, 'expected an IP address or CIDR like 10.0.0.0/8'));
const rateLimit = (perSecond: number, burst: number) =>
  v.optional(v.strictObject({ perSecond: v.optional(positive, perSecond), burst: v.optional(v.pipe(num(), v.finite(), v.minValue(1)), burst) }), { perSecond, burst });

/**
 * The config file's schema; `methods` holds one optional section per method, each its
 * descriptor's schema (methods/<family>/config.ts), so a new method adds no line here.
 */
export function configSchema(methods: Record<string, v.GenericSchema>) {
  const sections = Object.fromEntries(Object.entries(methods).map(([id, schema]) => [id, v.optional(schema)]));
  return v.strictObject({
  server: v.optional(
    v.strictObject({
      host: v.optional(v.pipe(v.string(), v.minLength(1)), '127.0.0.1'),
      port: v.optional(port, 8080),
      publicUrl: v.optional(httpUrl),
      rateLimit: rateLimit(100, 200),
      /** Per client IP: requests without valid credentials (failed ones too) and the checkout's /pay/*. */
      publicRateLimit: rateLimit(50, 100),
      /** Caps on the checkout's live-status websockets. */
      liveSockets: v.optional(
        v.strictObject({
          perIntent: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(1)), 10),
          total: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(1)), 1000),
        }),
        { perIntent: 10, total: 1000 },
      ),
      /** Key for hashing client secrets and sealing webhook secrets; default: a key file beside the database. */
      masterKey: v.optional(SecretRef),
      /** GET /metrics answers loopback clients and these networks ("10.0.0.0/8", "2001:db8::/32", or a single address). */
      metrics: v.optional(
        v.strictObject({
          allow: v.optional(v.array(cidr), []),
          /** Serve /metrics on this address only (its own listener), never on the API's. */
          listen: v.optional(v.strictObject({ host: v.optional(v.pipe(v.string(), v.minLength(1)), '127.0.0.1'), port })),
        }),
        { allow: [] },
      ),
      /**
       * Reverse proxies in front of payd (addresses or CIDRs; default none). A request from one
       * of them is from the rightmost X-Forwarded-For entry that is not one of them: that address
       * is what every per-IP limit counts.
       */
      trustedProxies: v.optional(v.array(cidr), []),
      /** The operator console under /console (off by default; docs/console.md). */
      console: v.optional(
        v.strictObject({
          enabled: v.optional(v.boolean('expected a boolean'), false),
          /**
           * The address the operator's browser shows (passkeys are bound to its host name);
           * default server.publicUrl, else http://localhost:<port>.
           */
          origin: v.optional(httpUrl),
          /** A session unused this long is signed out, minutes. */
          idleMinutes: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(1), v.maxValue(7 * 24 * 60)), 30),
          /** A session ends this long after sign-in however much it is used, hours (a stolen cookie does not live forever). */
          maxSessionHours: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(1), v.maxValue(30 * 24)), 12),
          /** The shop's time zone, an IANA name ("Asia/Kolkata"): the console shows every time in it; default the machine's zone. */
          timeZone: v.optional(v.pipe(v.string('expected an IANA time zone name'), v.check(isTimeZone, 'expected an IANA time zone name such as "Asia/Kolkata" or "UTC"'))),
        }),
        { enabled: false, idleMinutes: 30, maxSessionHours: 12 },
      ),
    }),
    {},
  ),
  database: v.optional(
    v.strictObject({
      /** SQLite (the default: data/payd.sqlite). */
      file: v.optional(v.pipe(v.string(), v.minLength(1))),
      /** PostgreSQL: a postgres:// URL (a secret: it may hold the password). Not together with `file`. */
      url: v.optional(SecretRef),
      /** PostgreSQL connections per process. */
      pool: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(1), v.maxValue(1000)), 10),
      /** PostgreSQL: a statement running longer is cancelled (0: no limit), ms. */
      statementTimeoutMs: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(0)), 5000),
    }),
    {},
  ),
  intents: v.optional(
    v.strictObject({
      ttlSeconds: seconds(1800),
      amountReuseCooldownSeconds: v.optional(v.pipe(num(), v.finite(), v.minValue(0)), 86400),
    }),
    {},
  ),
  /** Payment links (docs/links.md): public pages, so what one link may take at once is bounded. */
  links: v.optional(
    v.strictObject({
      /** Unpaid intents one link may hold open at once (each holds a unique amount). */
      maxOpenIntents: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(1)), 20),
      /** Intents created per link (any number of customers together), on top of the per-IP limit. */
      rateLimit: rateLimit(0.5, 10),
    }),
    {},
  ),
  webhooks: v.optional(
    v.strictObject({
      timeoutSeconds: seconds(10),
      retrySchedule: v.optional(v.array(v.pipe(num(), v.finite(), v.minValue(0))), [5, 300, 1800, 7200, 18000, 36000, 36000, 86400, 86400]),
      allowInsecureUrls: v.optional(v.boolean('expected a boolean'), false),
      /** Let webhooks reach private, link-local and reserved addresses (loopback too). */
      allowPrivateNetworks: v.optional(v.boolean('expected a boolean'), false),
      /** Let webhooks reach loopback (a receiver on the daemon's host). The sandbox always may. */
      allowLoopback: v.optional(v.boolean('expected a boolean'), false),
      concurrency: v.optional(v.pipe(num(), v.integer(), v.minValue(1), v.maxValue(256)), 16),
      secretRotationGraceSeconds: v.optional(v.pipe(num(), v.finite(), v.minValue(0)), 86400),
    }),
    {},
  ),
  notifications: v.optional(NotificationsConfig),
  /** Prices in fiat: rate sources per pair, fetched by the worker leader (src/pricing/). */
  pricing: v.optional(
    v.pipe(
      v.strictObject({
        /**
         * Per stablecoin unit ("USDT", "USDC"): true (the default for a unit its methods peg) quotes
         * it 1:1 in its fiat; false uses its pair's market rate (e.g. USDC/USD) instead.
         */
        pegs: v.optional(v.record(v.pipe(v.string(), v.regex(/^[A-Z]{3,5}$/, 'expected a unit like "USDC"')), v.boolean('expected a boolean')), {}),
        /** The older spelling of `pegs: { USDT: … }`; `pegs` wins where both say. */
        usdtPeg: v.optional(v.boolean('expected a boolean')),
        /** How long a quote holds (default: the intent's lifetime, intents.ttlSeconds); never longer than it. */
        quoteSeconds: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0'))),
        /** A fetched rate older than this is not used. */
        maxAgeSeconds: seconds(300),
        /** How often the worker leader asks every source of every pair (one request each). */
        refreshSeconds: seconds(60),
        /** A source further than this from the median of a pair's sources is ignored. */
        maxSpreadPercent: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0'), v.maxValue(100)), 3),
        /**
         * A reading further than this from the pair's last accepted rate is held back (not used)
         * until another source reports the same move in the same refresh.
         */
        maxChangePercent: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0'), v.maxValue(1000)), 10),
        /** "BASE/QUOTE" (USDT/INR, SOL/USD, USD/INR…) → its sources (two or more must agree; one listed alone is trusted alone); empty: no source is asked. */
        pairs: v.optional(
          v.record(
            v.pipe(v.string(), v.regex(/^[A-Z]{3,5}\/[A-Z]{3,5}$/, 'expected a pair like "USDT/INR"')),
            v.pipe(v.array(v.picklist(RATE_SOURCES, `expected one of ${RATE_SOURCES.join(', ')}`)), v.minLength(1, 'name at least one source')),
          ),
          {},
        ),
        /** Per source: another base URL (a self-hosted Frankfurter, a test fake) and CoinGecko's demo key. */
        sources: v.optional(
          v.strictObject(Object.fromEntries(RATE_SOURCES.map((s) => [s, v.optional(v.strictObject({ baseUrl: v.optional(httpUrl), apiKey: v.optional(SecretRef) }))])) as {
            [K in (typeof RATE_SOURCES)[number]]: v.OptionalSchema<v.StrictObjectSchema<{ baseUrl: v.OptionalSchema<typeof httpUrl, undefined>; apiKey: v.OptionalSchema<typeof SecretRef, undefined> }, undefined>, undefined>;
          }),
          {},
        ),
      }),
      // The older `usdtPeg` folds into `pegs`, so the rest of payd reads one map.
      v.transform(({ usdtPeg, ...rest }) => ({ ...rest, pegs: usdtPeg === undefined ? rest.pegs : { USDT: usdtPeg, ...rest.pegs } })),
    ),
    {},
  ),
  log: v.optional(v.strictObject({ level: v.optional(v.picklist(['debug', 'info', 'warn', 'error']), 'info') }), {}),
  methods: v.optional(v.strictObject(sections), {}),
  });
}

type Schema = ReturnType<typeof configSchema>;
/** A configured method's section, as its descriptor's schema outputs it (typed in its family's config.ts). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MethodSections = Record<string, any>;
export type ConfigInput = Omit<v.InferInput<Schema>, 'methods'> & { methods?: Record<string, unknown> };
export type ParsedConfig = Omit<v.InferOutput<Schema>, 'methods'> & { methods: MethodSections };
