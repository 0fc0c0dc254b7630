import { isIP } from 'node:net';
import * as v from 'valibot';
import { isSolanaAddress, isTronAddress, isVpa } from './addresses.ts';
import { SecretRefBox } from './secret.ts';
import { PROVIDER_PRESETS, PROVIDERS } from '../methods/upi/oauth/providers.ts';

/** A secret may be inline, from the environment, or from a file (systemd credentials). */
const SecretRef = v.pipe(
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

const num = (msg = 'expected a number') => v.number(msg);
/** "10.0.0.0/8", "2001:db8::/32" or a bare address. */
export function isCidr(s: string): boolean {
  const [addr, bits, extra] = s.split('/');
  const family = isIP(addr ?? '');
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}
const cidr = v.pipe(v.string(), v.check(isCidr, 'expected an IP address or CIDR like 10.0.0.0/8'));
const positive = v.pipe(num(), v.finite(), v.minValue(0, 'must not be negative'));
const port = v.pipe(num(), v.integer('expected an integer'), v.minValue(0), v.maxValue(65535));
const seconds = (def: number) => v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')), def);
const decimalAmount = v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')));
const httpUrl = v.pipe(
  v.string(),
  v.url('expected a URL'),
  v.check((s) => /^https?:\/\//.test(s), 'expected an http(s) URL'),
);
const wsUrl = v.nullable(
  v.pipe(
    v.string(),
    v.url('expected a URL'),
    v.check((s) => /^wss?:\/\//.test(s), 'expected a ws(s) URL'),
  ),
);
const commitment = v.optional(v.picklist(['processed', 'confirmed', 'finalized'], 'expected processed, confirmed or finalized'), 'finalized');

const rateLimit = (perSecond: number, burst: number) =>
  v.optional(v.strictObject({ perSecond: v.optional(positive, perSecond), burst: v.optional(v.pipe(num(), v.finite(), v.minValue(1)), burst) }), { perSecond, burst });

/** Settings every method accepts. Amounts are decimal numbers in the method's unit. */
const methodCommon = {
  minAmount: decimalAmount,
  maxAmount: decimalAmount,
  amountStep: decimalAmount,
  maxOffsetSteps: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(0), v.maxValue(100_000)), 100),
  /** Under pressure the unique-amount window widens up to this share of the price (docs/api.md: unique pay_amount); default 1 (config/load.ts). */
  maxSurchargePercent: v.optional(v.pipe(num(), v.finite(), v.minValue(0, 'must not be negative'), v.maxValue(100))),
  /** Under pressure one merchant's intents may hold at most this share of a price's window; default 100 (config/load.ts). */
  merchantSharePercent: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0'), v.maxValue(100))),
  /** An exact payment after expires_at while its amount is still reserved: settle the intent (default) or hold it for the merchant (issue 27). */
  latePayments: v.optional(v.picklist(['settle', 'hold'], 'expected "settle" or "hold"')),
  /** How short an attributed payment may be and still settle: "1%" or an amount ("1.00"); absent: not at all (config/load.ts parses it). */
  underpaymentTolerance: v.optional(v.string('expected a string like "1%" or "1.00"')),
  /** How far below a pay_amount a short payment is still attributed to it; default maxOffsetSteps × amountStep; 0: never. */
  attributionWindow: v.optional(v.pipe(num(), v.finite(), v.minValue(0, 'must not be negative'))),
};

/**
 * IMAP sign-in with OAuth 2.0 (XOAUTH2 / OAUTHBEARER): a refresh token exchanged for access tokens.
 * `provider` fills tokenUrl and scope from the provider's documentation; explicit keys win.
 */
const OAuth2Auth = v.pipe(
  v.strictObject({
    type: v.literal('oauth2', 'expected "oauth2"'),
    provider: v.optional(v.picklist(PROVIDERS, 'expected "google" or "microsoft"')),
    tokenUrl: v.optional(httpUrl),
    clientId: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
    clientSecret: v.optional(SecretRef),
    refreshToken: SecretRef,
    scope: v.optional(v.string()),
  }),
  v.forward(
    v.check((a) => a.provider !== undefined || a.tokenUrl !== undefined, 'is required (or name a "provider": google or microsoft)'),
    ['tokenUrl'],
  ),
  v.forward(
    v.check((a) => a.provider !== 'google' || a.clientSecret !== undefined, 'is required for Google (the OAuth client\'s secret)'),
    ['clientSecret'],
  ),
  v.transform((a) => {
    const preset = a.provider ? PROVIDER_PRESETS[a.provider] : undefined;
    return { ...a, tokenUrl: a.tokenUrl ?? preset!.tokenUrl, scope: a.scope ?? preset?.scope ?? '' };
  }),
);

const ImapConfig = v.pipe(
  v.strictObject({
    host: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
    port: v.optional(port, 993),
    secure: v.optional(v.boolean('expected a boolean'), true),
    user: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
    /** Password sign-in (as before); exactly one of password and auth. */
    password: v.optional(SecretRef),
    auth: v.optional(OAuth2Auth),
    mailbox: v.optional(v.pipe(v.string(), v.minLength(1)), 'INBOX'),
    backfillHours: v.optional(v.pipe(num(), v.finite(), v.minValue(0)), 24),
    // Under the UPI maxLagSeconds default (300): the lag of a mailbox is the time since its last completed sync.
    resyncSeconds: seconds(120),
  }),
  v.forward(
    v.check((i) => i.password !== undefined || i.auth !== undefined, 'is required (or sign in with OAuth 2.0 under "auth")'),
    ['password'],
  ),
  v.forward(
    v.check((i) => i.password === undefined || i.auth === undefined, 'give either "password" or "auth" (OAuth 2.0), not both'),
    ['auth'],
  ),
);

/** A plain e-mail address (the alert's signed To is compared case-insensitively). */
const isEmail = (s: string): boolean => /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/.test(s);

const UpiFields = v.strictObject({
  ...methodCommon,
  vpa: v.pipe(v.string(), v.check(isVpa, 'expected a UPI VPA like shop@hdfcbank')),
  payeeName: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(99)),
  imap: ImapConfig,
  /** Where the bank sends the alerts (DESIGN §9): default [imap.user] when that is an e-mail address. */
  alertRecipients: v.optional(v.pipe(v.array(v.pipe(v.string(), v.check(isEmail, 'expected an e-mail address'))), v.minLength(1, 'list at least one address'))),
  accounts: v.pipe(
    v.array(
      v.strictObject({
        bank: v.picklist(['hdfc', 'icici', 'sbi', 'axis', 'kotak', 'yes', 'indusind', 'federal'], 'expected a known bank id'),
        // The whole number lets payd also compare the leading digits a bank prints (IndusInd 15XXXXXX4321).
        accountEnding: v.pipe(v.string(), v.regex(/^(?:\d{3,6}|\d{9,18})$/, 'expected the last 3 to 6 digits of the account, or the whole account number')),
      }),
    ),
    v.minLength(1, 'list at least one account'),
  ),
  /** Mail larger than this (IMAP RFC822.SIZE) is rejected `too_large` unread: bank alerts are a few KB. */
  maxMessageBytes: v.optional(v.pipe(num(), v.integer('expected a whole number of bytes'), v.minValue(16_384, 'must be at least 16384')), 262_144),
  /** Wall-clock limit on inspecting one message (parsing, DKIM; DNS waits excluded), then `inspector_timeout`. */
  inspectTimeoutSeconds: seconds(5),
  /** Rejected mail is deleted after this many days. */
  keepRejectedDays: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')), 90),
  dkim: v.optional(
    v.strictObject({
      required: v.optional(v.boolean('expected a boolean'), true),
      dnsServers: v.optional(v.array(v.pipe(v.string(), v.minLength(1))), []),
      /** How long a message whose bank key / DMARC record cannot be fetched is retried before it is rejected. */
      retryHours: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')), 24),
    }),
    { required: true, dnsServers: [], retryHours: 24 },
  ),
  /** /readyz 503 when the last completed mailbox sync is older than this (default 300, or more over a longer imap.resyncSeconds). */
  maxLagSeconds: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0'))),
  /** Silence alarm (off by default): hours a UPI intent may wait without any verified alert arriving after it. */
  expectAlertWithinHours: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0'))),
});

const UpiConfig = v.pipe(
  UpiFields,
  v.forward(
    v.check((c) => c.maxLagSeconds === undefined || c.maxLagSeconds > c.imap.resyncSeconds * 1.2, 'must exceed imap.resyncSeconds by more than its 20 % jitter (a healthy mailbox syncs that often)'),
    ['maxLagSeconds'],
  ),
  v.forward(
    v.check((c) => c.alertRecipients !== undefined || isEmail(c.imap.user), 'is required when imap.user is not an e-mail address'),
    ['alertRecipients'],
  ),
  v.transform((c) => ({
    ...c,
    alertRecipients: c.alertRecipients ?? [c.imap.user],
    // A config written before the limit existed, with a long re-sync, must not start out failing.
    maxLagSeconds: c.maxLagSeconds ?? Math.max(300, Math.ceil(c.imap.resyncSeconds * 1.2) + 60),
  })),
);

/** A healthy source is up to one poll behind: a limit at or under it would always fail. */
const lagOverPoll = <T extends { maxLagSeconds?: number; pollSeconds: number }>() => [
  v.forward<T, v.CheckIssue<T>, ['maxLagSeconds']>(v.check((c: T) => c.maxLagSeconds === undefined || c.maxLagSeconds > c.pollSeconds, 'must be greater than pollSeconds'), ['maxLagSeconds'] as never),
  // Default 120 s, or three polls when polling is slower than that (a config written before the limit existed).
  v.transform((c: T) => ({ ...c, maxLagSeconds: c.maxLagSeconds ?? Math.max(120, Math.ceil(c.pollSeconds * 3)) })),
] as const;
const chainMaxLag = v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')));

const TronFields = v.strictObject({
  ...methodCommon,
  address: v.pipe(v.string(), v.check(isTronAddress, 'expected a TRON base58check address (T…)')),
  apiUrl: v.optional(httpUrl, 'https://api.trongrid.io'),
  apiKey: v.optional(SecretRef),
  contract: v.optional(
    v.pipe(v.string(), v.check(isTronAddress, 'expected a TRON base58check address (T…)')),
    'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  ),
  pollSeconds: seconds(10),
  /** Deep re-scan: every rescanSeconds, list the last rescanHours again (TronGrid indexes some transfers late). */
  rescanSeconds: seconds(600),
  rescanHours: seconds(24),
  /** /readyz 503 when the source is this far behind the head TronGrid reports. */
  maxLagSeconds: chainMaxLag,
});
const TronConfig = v.pipe(TronFields, ...lagOverPoll<v.InferOutput<typeof TronFields>>());

const solanaCommon = {
  ...methodCommon,
  wallet: v.pipe(v.string(), v.check(isSolanaAddress, 'expected a Solana public key (base58)')),
  rpcUrl: v.optional(httpUrl, 'https://api.mainnet-beta.solana.com'),
  wsUrl: v.optional(wsUrl, null),
  commitment,
  pollSeconds: seconds(10),
  /** /readyz 503 when the source is this far behind the RPC's slot at the commitment. */
  maxLagSeconds: chainMaxLag,
};

const SolFields = v.strictObject(solanaCommon);
const SolConfig = v.pipe(SolFields, ...lagOverPoll<v.InferOutput<typeof SolFields>>());
const UsdtSolFields = v.strictObject({
  ...solanaCommon,
  mint: v.optional(
    v.pipe(v.string(), v.check(isSolanaAddress, 'expected a Solana mint address (base58)')),
    'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
  ),
});
const UsdtSolConfig = v.pipe(UsdtSolFields, ...lagOverPoll<v.InferOutput<typeof UsdtSolFields>>());

export const ConfigSchema = v.strictObject({
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
  log: v.optional(v.strictObject({ level: v.optional(v.picklist(['debug', 'info', 'warn', 'error']), 'info') }), {}),
  methods: v.optional(
    v.strictObject({
      UPI: v.optional(UpiConfig),
      USDT_TRC20: v.optional(TronConfig),
      USDT_SOL: v.optional(UsdtSolConfig),
      SOL: v.optional(SolConfig),
    }),
    {},
  ),
});

export type ConfigInput = v.InferInput<typeof ConfigSchema>;
export type ParsedConfig = v.InferOutput<typeof ConfigSchema>;
export type UpiMethodConfig = v.InferOutput<typeof UpiConfig>;
export type OAuth2AuthConfig = v.InferOutput<typeof OAuth2Auth>;
export type TronMethodConfig = v.InferOutput<typeof TronConfig>;
export type SolMethodConfig = v.InferOutput<typeof SolConfig>;
export type UsdtSolMethodConfig = v.InferOutput<typeof UsdtSolConfig>;
