import type { Resolved } from '../../config/secret.ts';
import type { UpiMethodConfig } from '../../config/schema.ts';
import type { DoctorResult, PaymentSource, SourceDeps } from '../source.ts';
import type { AlertVerdict, DnsResolver, InspectOptions } from './alert.ts';
import { createDnsResolver } from './dns.ts';
import { inspectAlert } from './inspect.ts';
import type { MailboxTokenStore } from '../../services/mailbox-tokens.ts';
import { connectImap, defaultImapFactory, oauthCredentials, passwordCredentials, type ImapCredentials, type ImapFactory } from './mailbox-client.ts';
import { createAccessTokens } from './oauth/token-provider.ts';
import type { FormPost } from './oauth/token-endpoint.ts';
import { checkpointKey } from './mailbox-checkpoint.ts';
import { describeImapFailure } from './mailbox-errors.ts';
import { watchMailbox, type Backoff } from './mailbox-watcher.ts';

export type UpiSourceConfig = Resolved<UpiMethodConfig>;
export type InspectAlert = (raw: Buffer, opts: InspectOptions) => Promise<AlertVerdict>;

export interface UpiSourceDeps extends SourceDeps {
  /** The alert inspector; default the real DKIM-checking one. */
  inspect?: InspectAlert;
  /** DNS for DKIM/DMARC; default a resolver over `dkim.dnsServers`. */
  resolver?: DnsResolver;
  /** Builds each (single-use) IMAP client. */
  imapFactory?: ImapFactory;
  /** Reconnect backoff; default 1 s doubling to 60 s. */
  backoff?: Backoff;
  /** Pause before looking again at a message the inspector asked to retry; default 30 s. */
  retryMs?: number;
  /** Keeps OAuth refresh tokens the provider rotates (sealed); without it a rotation lasts until restart. */
  mailboxTokens?: MailboxTokenStore;
  /** OAuth token endpoint POST and its time limit (tests). */
  oauthPost?: FormPost;
  oauthTimeoutMs?: number;
}

/** Password, or OAuth 2.0 access tokens refreshed from the configured refresh token. */
function credentials(config: UpiSourceConfig, deps: UpiSourceDeps, log: SourceDeps['log']): ImapCredentials {
  const { user, password, auth } = config.imap;
  if (auth) {
    const tokens = createAccessTokens(
      { user, provider: auth.provider, tokenUrl: auth.tokenUrl, clientId: auth.clientId, clientSecret: auth.clientSecret, refreshToken: auth.refreshToken, scope: auth.scope },
      { clock: deps.clock, log, store: deps.mailboxTokens, post: deps.oauthPost, timeoutMs: deps.oauthTimeoutMs },
    );
    return oauthCredentials(user, tokens, auth.scope);
  }
  // The schema guarantees one of the two.
  return passwordCredentials(user, password!);
}

const DNS_TIMEOUT_MS = 5_000;

/** The UPI source: watches the merchant's mailbox for bank credit alerts. */
export function createUpiSource(config: UpiSourceConfig, deps: UpiSourceDeps): PaymentSource {
  const where = { host: config.imap.host, port: config.imap.port, user: config.imap.user, mailbox: config.imap.mailbox };
  const factory = deps.imapFactory ?? defaultImapFactory;
  const log = deps.log.child({ source: 'upi-imap', mailbox: `${where.user}@${where.host}/${where.mailbox}` });
  const imap = { ...where, secure: config.imap.secure, credentials: credentials(config, deps, log) };

  return {
    name: 'upi-imap',

    async run(signal) {
      const inspect = deps.inspect ?? inspectAlert;
      const resolver = deps.resolver ?? createDnsResolver(config.dkim.dnsServers, DNS_TIMEOUT_MS);
      const opts = { accounts: config.accounts, dkimRequired: config.dkim.required, resolver };
      await watchMailbox(
        {
          imap,
          factory,
          log,
          random: deps.random,
          resyncMs: config.imap.resyncSeconds * 1000,
          retryMs: deps.retryMs ?? 30_000,
          backoff: deps.backoff ?? { baseMs: 1_000, maxMs: 60_000 },
          sync: {
            key: checkpointKey(imap),
            vpa: config.vpa,
            backfillHours: config.imap.backfillHours,
            ledger: deps.ledger,
            clock: deps.clock,
            log,
            inspect: (raw, receivedAt) => inspect(raw, { ...opts, receivedAt }),
          },
        },
        signal,
      );
    },

    async check(signal): Promise<DoctorResult> {
      let client: Awaited<ReturnType<typeof connectImap>> | undefined;
      const onAbort = () => client?.close();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        client = await connectImap(imap, factory, signal, { disableAutoIdle: true });
        const st = await client.status(imap.mailbox, { messages: true, uidValidity: true, uidNext: true });
        if (!st) return { ok: false, message: describeImapFailure({ mailboxMissing: true }, where) };
        await client.logout();
        return {
          ok: true,
          message: `IMAP ${imap.user}@${imap.host}:${imap.port} OK${config.imap.auth ? ' (signed in with OAuth 2.0)' : ''}; mailbox "${imap.mailbox}" holds ${st.messages ?? 0} messages (UIDVALIDITY ${st.uidValidity ?? '?'})`,
        };
      } catch (err) {
        if (signal.aborted) return { ok: false, message: 'IMAP check aborted' };
        return { ok: false, message: describeImapFailure(err, where) };
      } finally {
        signal.removeEventListener('abort', onAbort);
        client?.close();
      }
    },
  };
}
