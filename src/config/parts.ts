import * as v from 'valibot';
import { SecretRefBox } from './secret.ts';

/** Building blocks of the config schema, shared by its sections and the methods' (methods/<family>/config.ts). */

/** A secret may be inline, from the environment, or from a file (systemd credentials). */
export const SecretRef = v.pipe(
  v.union(
    [
      v.pipe(v.string(), v.minLength(1, 'must not be empty')),
      v.strictObject({ env: v.pipe(v.string(), v.minLength(1)) }),
      v.strictObject({ file: v.pipe(v.string(), v.minLength(1)) }),
    ],
    'expected a string, { "env": "NAME" } or { "file": "PATH" }',
  ),
  v.transform((ref) => new SecretRefBox(ref)),
);

export const num = (msg = 'expected a number') => v.number(msg);
export const positive = v.pipe(num(), v.finite(), v.minValue(0, 'must not be negative'));
export const port = v.pipe(num(), v.integer('expected an integer'), v.minValue(0), v.maxValue(65535));
export const seconds = (def: number) => v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')), def);
export const decimalAmount = v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')));
export const httpUrl = v.pipe(
  v.string(),
  v.url('expected a URL'),
  v.check((s) => /^https?:\/\//.test(s), 'expected an http(s) URL'),
);
export const wsUrl = v.nullable(
  v.pipe(
    v.string(),
    v.url('expected a URL'),
    v.check((s) => /^wss?:\/\//.test(s), 'expected a ws(s) URL'),
  ),
);
export const commitment = v.optional(v.picklist(['processed', 'confirmed', 'finalized'], 'expected processed, confirmed or finalized'), 'finalized');

/** Settings every method accepts. Amounts are decimal numbers in the method's unit. */
export const methodCommon = {
  minAmount: decimalAmount,
  maxAmount: decimalAmount,
  amountStep: decimalAmount,
  maxOffsetSteps: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(0), v.maxValue(100_000)), 100),
  /** Under pressure the unique-amount window widens up to this share of the price (docs/api.md: unique pay_amount); default 1 (config/read.ts). */
  maxSurchargePercent: v.optional(v.pipe(num(), v.finite(), v.minValue(0, 'must not be negative'), v.maxValue(100))),
  /** Under pressure one merchant's intents may hold at most this share of a price's window; default 100 (config/read.ts). */
  merchantSharePercent: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0'), v.maxValue(100))),
  /** An exact payment after expires_at while its amount is still reserved: settle the intent (default) or hold it for the merchant. */
  latePayments: v.optional(v.picklist(['settle', 'hold'], 'expected "settle" or "hold"')),
  /** A payment after a priced intent's quote expired: held (default, false) or settled late at the old rate (true). */
  settleExpiredQuotes: v.optional(v.boolean('expected a boolean')),
  /** How short an attributed payment may be and still settle: "1%" or an amount ("1.00"); absent: not at all (config/read.ts parses it). */
  underpaymentTolerance: v.optional(v.string('expected a string like "1%" or "1.00"')),
  /** How far below a pay_amount a short payment is still attributed to it; default maxOffsetSteps × amountStep; 0: never. */
  attributionWindow: v.optional(v.pipe(num(), v.finite(), v.minValue(0, 'must not be negative'))),
};

/** A healthy source is up to one poll behind: a limit at or under it would always fail. */
export const lagOverPoll = <T extends { maxLagSeconds?: number; pollSeconds: number }>() => [
  v.forward<T, v.CheckIssue<T>, ['maxLagSeconds']>(v.check((c: T) => c.maxLagSeconds === undefined || c.maxLagSeconds > c.pollSeconds, 'must be greater than pollSeconds'), ['maxLagSeconds'] as never),
  // Default 120 s, or three polls when polling is slower than that (a config written before the limit existed).
  v.transform((c: T) => ({ ...c, maxLagSeconds: c.maxLagSeconds ?? Math.max(120, Math.ceil(c.pollSeconds * 3)) })),
] as const;
export const chainMaxLag = v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')));


/**
 * Several upstreams for one chain (methods/upstream-pool.ts): any TronGrid-compatible API or
 * Solana JSON-RPC. `weight` (default 1) divides an endpoint's latency score: 2 is preferred to 1.
 */
const Endpoint = v.strictObject({
  url: httpUrl,
  apiKey: v.optional(SecretRef),
  weight: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')), 1),
});
const endpointArray = v.pipe(
  v.array(Endpoint, 'expected a list of { "url", "apiKey"?, "weight"? }'),
  v.minLength(1, 'must list at least one endpoint'),
  v.check((list) => new Set(list.map((e) => e.url.replace(/\/+$/, ''))).size === list.length, 'lists the same url twice'),
);
export const endpointList = v.optional(endpointArray);
/** For an upstream with no key header of its own (JSON-RPC): a key goes where the provider wants it, at `{apiKey}` in the url. */
export const keyInUrlEndpointList = v.optional(
  v.pipe(
    endpointArray,
    v.check((list) => list.every((e) => e.apiKey === undefined || e.url.includes('{apiKey}')), 'an apiKey needs {apiKey} in its url, where the provider wants the key (e.g. "https://mainnet.helius-rpc.com/?api-key={apiKey}" or "https://mainnet.infura.io/v3/{apiKey}")'),
  ),
);
/** `endpoints` replaces the single-upstream keys; both at once would leave one of them unused. */
export const endpointsAlone = <T extends { endpoints?: unknown[] }>(single: string[]) =>
  v.forward<T, v.CheckIssue<T>, ['endpoints']>(
    v.check((c: T) => c.endpoints === undefined || single.every((k) => (c as Record<string, unknown>)[k] === undefined), `cannot be combined with ${single.join(' or ')} (move them into the list)`),
    ['endpoints'] as never,
  );

/**
 * `confirmations.endpoints`: how many of a chain method's endpoints must show a transaction
 * before it moves money, and how many a cursor's head must be agreed by (methods/upstream-pool.ts).
 * Default: 2 where two or more endpoints are configured, else 1 (that provider is trusted entirely).
 */
export const chainConfirmations = v.optional(
  v.strictObject({ endpoints: v.pipe(num(), v.integer('expected an integer'), v.minValue(1, 'must be at least 1')) }),
);
/** More confirmations than endpoints could never be met: nothing would ever settle. */
export const confirmationsWithinEndpoints = <T extends { endpoints?: unknown[]; confirmations?: { endpoints?: number } }>() =>
  v.forward<T, v.CheckIssue<T>, ['confirmations']>(
    v.check((c: T) => c.confirmations?.endpoints === undefined || c.confirmations.endpoints <= (c.endpoints?.length ?? 1), 'cannot exceed the number of endpoints configured (a single apiUrl or rpcUrl is one)'),
    ['confirmations'] as never,
  );
