import * as v from 'valibot';
import { isVpa } from '../../config/addresses.ts';
import { httpUrl, methodCommon, num, port, SecretRef, seconds } from '../../config/parts.ts';
import type { Resolved } from '../../config/secret.ts';
import { PROVIDER_PRESETS, PROVIDERS } from '../../config/oauth-providers.ts';

/** The `methods.UPI` config section. */

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
  /** Where the bank sends the alerts (docs/methods/upi.md): default [imap.user] when that is an e-mail address. */
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

export const UpiConfig = v.pipe(
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

export type UpiMethodConfig = v.InferOutput<typeof UpiConfig>;
export type OAuth2AuthConfig = v.InferOutput<typeof OAuth2Auth>;
/** The section as the app holds it (secrets resolved). */
export type UpiSection = Resolved<UpiMethodConfig>;
