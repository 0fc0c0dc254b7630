import type { Secret } from '../../../config/secret.ts';
import { PaydError } from '../../../domain/errors.ts';
import type { Clock, Logger } from '../../../domain/ports.ts';
import type { MailboxTokenStore } from '../../../domain/ports.ts';
import { describePostFailure, oauthErrorCode, oauthErrorText, readGrant, safeOrigin, undiciFormPost, type FormPost } from './token-endpoint.ts';

export interface OAuthSettings {
  /** The mailbox (IMAP user) the token signs in as. */
  user: string;
  provider?: 'google' | 'microsoft';
  tokenUrl: string;
  clientId: string;
  clientSecret?: Secret;
  refreshToken: Secret;
  scope: string;
}

export interface TokenProviderDeps {
  clock: Clock;
  log: Logger;
  /** Where rotated refresh tokens are kept; without one a rotation lives only in memory. */
  store?: MailboxTokenStore;
  post?: FormPost;
  /** Wall-clock limit of one token request; default 15 s. */
  timeoutMs?: number;
}

/** Access tokens for one mailbox, refreshed with the refresh-token grant (RFC 6749 §6). */
export interface AccessTokens {
  /** A token valid for a while yet: the cached one, or a fresh one. */
  get(signal?: AbortSignal): Promise<string>;
  /** The server refused the cached token: the next get() fetches a new one. */
  invalidate(): void;
}

const DEFAULT_LIFETIME_S = 300; // when the provider does not say (expires_in is only RECOMMENDED)
const MAX_MARGIN_MS = 60_000;

/** Key of a mailbox's stored refresh token: one per user, token endpoint and client. */
export const tokenStoreKey = (settings: Pick<OAuthSettings, 'user' | 'tokenUrl' | 'clientId'>): string => `imap-oauth:${settings.user} ${settings.tokenUrl} ${settings.clientId}`;

export function createAccessTokens(settings: OAuthSettings, deps: TokenProviderDeps): AccessTokens {
  const post = deps.post ?? undiciFormPost;
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const key = tokenStoreKey(settings);
  const configured = settings.refreshToken.reveal();
  let cached: { token: string; refreshAt: number } | undefined;
  // Without a store, rotations live here; with one, it is read on every refresh, so a rotation
  // made by another process (`payd doctor` beside the daemon) is picked up.
  let latestRefresh: string | undefined;
  let inflight: Promise<string> | undefined;

  const authorizeHint = settings.provider ? `payd mailbox authorize --provider ${settings.provider}` : 'payd mailbox authorize';

  async function refresh(signal?: AbortSignal): Promise<string> {
    const refreshToken = deps.store ? await deps.store.current(key, configured) : (latestRefresh ?? configured);
    const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: settings.clientId };
    if (settings.clientSecret) form.client_secret = settings.clientSecret.reveal();
    if (settings.scope) form.scope = settings.scope;
    const started = deps.clock.now();
    let res: Awaited<ReturnType<FormPost>>;
    try {
      res = await post(settings.tokenUrl, form, timeoutMs, signal);
    } catch (err) {
      throw describePostFailure(err, settings.tokenUrl, timeoutMs);
    }
    const secrets = [refreshToken, configured, settings.clientSecret?.reveal() ?? ''];
    const grant = res.status === 200 ? readGrant(res.json) : undefined;
    if (!grant) throw refusal(res.status, res.json, secrets);
    if (grant.refreshToken && grant.refreshToken !== refreshToken) {
      // Persist before use: a crash now must not leave only a token the provider may already have retired.
      if (deps.store) await deps.store.save(key, configured, grant.refreshToken);
      latestRefresh = grant.refreshToken;
      deps.log.info('mailbox OAuth refresh token rotated by the provider; the new one is stored sealed', { user: settings.user, durable: Boolean(deps.store) });
    }
    const lifetimeMs = (grant.expiresIn ?? DEFAULT_LIFETIME_S) * 1000;
    // Refresh shortly before expiry: a tenth of the lifetime, at most a minute.
    cached = { token: grant.accessToken, refreshAt: started + lifetimeMs - Math.min(MAX_MARGIN_MS, lifetimeMs / 10) };
    deps.log.debug('mailbox OAuth access token refreshed', { user: settings.user, expires_in_s: grant.expiresIn ?? null });
    return grant.accessToken;
  }

  function refusal(status: number, json: Record<string, unknown> | undefined, secrets: string[]): PaydError {
    const code = oauthErrorCode(json);
    const why = oauthErrorText(json, secrets);
    const where = safeOrigin(settings.tokenUrl);
    if (code === 'invalid_grant')
      return new PaydError(
        'UPSTREAM',
        `the mail provider refused the OAuth refresh token for ${settings.user} (${why}): it was revoked or has expired. Run \`${authorizeHint}\` and put the new refresh token in methods.UPI.imap.auth.refreshToken, then restart payd`,
        { needsOperator: true },
      );
    if (code === 'invalid_client' || code === 'unauthorized_client')
      // A wrong client id or secret does not fix itself either: blocked at once, like a revoked token.
      return new PaydError('UPSTREAM', `the mail provider refused the OAuth client ${settings.clientId} (${why}): check methods.UPI.imap.auth.clientId and clientSecret`, { needsOperator: true });
    if (code === 'invalid_scope') return new PaydError('UPSTREAM', `the mail provider refused the OAuth scope "${settings.scope}" (${why}): check methods.UPI.imap.auth.scope`);
    return new PaydError('UPSTREAM', `OAuth token endpoint ${where} answered HTTP ${status} (${json ? why : 'not JSON'})`);
  }

  return {
    get(signal) {
      if (cached && deps.clock.now() < cached.refreshAt) return Promise.resolve(cached.token);
      // One request at a time: concurrent callers share it (a rotation must not race itself).
      inflight ??= refresh(signal).finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
