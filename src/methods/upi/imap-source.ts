import type { Resolved } from '../../config/secret.ts';
import type { UpiMethodConfig } from './config.ts';
import type { DoctorResult, PaymentSource, SourceDeps } from '../source.ts';
import type { AlertVerdict, DnsResolver, InspectOptions } from './alert.ts';
import { createDnsResolver } from './dns.ts';
import type { MailboxTokenStore } from '../../services/mailbox-tokens.ts';
import { connectImap, defaultImapFactory, oauthCredentials, passwordCredentials, type ImapCredentials, type ImapFactory } from './mailbox-client.ts';
import { createAccessTokens } from './oauth/token-provider.ts';
import type { FormPost } from './oauth/token-endpoint.ts';
import { withoutCycleReporter } from '../../workers/cycle.ts';
import { runLoop } from '../../workers/loop.ts';
import type { UpiMailStore } from './mail-store.ts';
import { checkpointKey } from './mailbox-checkpoint.ts';
import { describeImapFailure } from './mailbox-errors.ts';
import { retryParked } from './mailbox-parked.ts';
import { watchMailbox, type Backoff } from './mailbox-watcher.ts';
import { fromLineAddresses, senderBank } from './mail-headers.ts';

export type UpiSourceConfig = Resolved<UpiMethodConfig>;
export type InspectAlert = (raw: Buffer, opts: InspectOptions) => Promise<AlertVerdict>;

export interface UpiSourceDeps extends SourceDeps {
  /** Parked and unreadable mail (kept in the database, so nothing is lost across restarts). */
  store: UpiMailStore;
  /** The alert inspector; default the real DKIM-checking one. */
  inspect?: InspectAlert;
  /** DNS for DKIM/DMARC; default a resolver over `dkim.dnsServers`. */
  resolver?: DnsResolver;
  /** Builds each (single-use) IMAP client. */
  imapFactory?: ImapFactory;
  /** Reconnect backoff; default 1 s doubling to 60 s. */
  backoff?: Backoff;
  /** First re-check of a parked message after this long; doubles per attempt up to 1 h. Default 30 s. */
  retryMs?: number;
  /** DNS look-up deadline for DKIM keys and DMARC records; default 5 s. */
  dnsTimeoutMs?: number;
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

/**
 * The real inspector runs in a worker thread under a wall-clock limit (inspector-pool.ts). The
 * thread starts with the first message to inspect and stops when idle: it holds ~40 MB that a
 * mailbox without new mail does not need; the first alert after a quiet spell waits for its start.
 */
async function realInspector(timeoutMs: number, log: SourceDeps['log']): Promise<{ inspect: InspectAlert; close(): Promise<void> }> {
  const { createInspectorPool } = await import('./inspector-pool.ts');
  return createInspectorPool({ timeoutMs, log });
}

/** Only mail whose From names a bank the operator receives payments at is fetched whole and parsed. */
function senderScreen(banks: readonly string[]) {
  return (head: string) => {
    const from = fromLineAddresses(head);
    return senderBank(from, banks) ? undefined : { reason: 'unknown_sender', detail: { from: from.slice(0, 5) } };
  };
}

const DNS_TIMEOUT_MS = 5_000;
const DAY_MS = 86_400_000;
const MAX_PARKED_RETRY_MS = 3_600_000;
const HOUR_MS = 3_600_000;

/** The UPI source: watches the merchant's mailbox for bank credit alerts. */
export function createUpiSource(config: UpiSourceConfig, deps: UpiSourceDeps): PaymentSource {
  const where = { host: config.imap.host, port: config.imap.port, user: config.imap.user, mailbox: config.imap.mailbox };
  const factory = deps.imapFactory ?? defaultImapFactory;
  const log = deps.log.child({ source: 'upi-imap', mailbox: `${where.user}@${where.host}/${where.mailbox}` });
  const imap = { ...where, secure: config.imap.secure, credentials: credentials(config, deps, log) };
  const key = checkpointKey(imap);

  return {
    name: 'upi-imap',

    async run(signal) {
      const pool = deps.inspect ? undefined : await realInspector(config.inspectTimeoutSeconds * 1000, log);
      try {
        await runSource(signal, deps.inspect ?? pool!.inspect);
      } finally {
        await pool?.close();
      }
    },

    async check(signal): Promise<DoctorResult> {
      const imapResult = await checkImap(signal);
      const notes = await mailNotes();
      if (!notes.unread) return notes.parked ? { ...imapResult, message: `${imapResult.message}; ${notes.parked}` } : imapResult;
      // Template churn is loud: unreadable verified alerts fail the check.
      return { ok: false, message: [imapResult.message, notes.unread, notes.parked].filter(Boolean).join('; ') };
    },
  };

  async function runSource(signal: AbortSignal, inspect: InspectAlert): Promise<void> {
    const resolver = deps.resolver ?? createDnsResolver(config.dkim.dnsServers, deps.dnsTimeoutMs ?? DNS_TIMEOUT_MS);
    const opts = { accounts: config.accounts, alertRecipients: config.alertRecipients, dkimRequired: config.dkim.required, resolver };
    const bound = (raw: Buffer, receivedAt?: number) => inspect(raw, { ...opts, receivedAt });
    const retryMs = deps.retryMs ?? 30_000;
    let prunedAt = -Infinity;
    // Marks this run leaves on messages being inspected; another run's mark means a crash.
    const runId = deps.random.uuid();
    // Parked mail is re-checked from its stored bytes on its own loop: it needs DNS, not IMAP. Its ticks
    // say nothing about the mailbox, so they stay out of the source's health (/readyz).
    const parked = runLoop({
      name: 'parked UPI mail',
      intervalMs: Math.min(retryMs, 60_000),
      signal: withoutCycleReporter(signal),
      log,
      random: deps.random,
      tick: async () => {
        // Housekeeping, hourly: rejected mail older than keepRejectedDays goes (forged mail costs disk).
        if (deps.clock.now() - prunedAt >= HOUR_MS) {
          prunedAt = deps.clock.now();
          const pruned = await deps.store.pruneRejected(prunedAt - config.keepRejectedDays * DAY_MS);
          if (pruned > 0) log.info('old rejected mail pruned', { count: pruned, keepRejectedDays: config.keepRejectedDays });
        }
        await retryParked({
          key,
          vpa: config.vpa,
          ledger: deps.ledger,
          store: deps.store,
          clock: deps.clock,
          log,
          inspect: bound,
          giveUpMs: config.dkim.retryHours * HOUR_MS,
          retryMs,
          maxRetryMs: MAX_PARKED_RETRY_MS,
          runId,
        });
      },
    });
    const watcher = watchMailbox(
      {
        imap,
        factory,
        log,
        random: deps.random,
        resyncMs: config.imap.resyncSeconds * 1000,
        backoff: deps.backoff ?? { baseMs: 1_000, maxMs: 60_000 },
        sync: {
          key,
          vpa: config.vpa,
          backfillHours: config.imap.backfillHours,
          ledger: deps.ledger,
          clock: deps.clock,
          log,
          inspect: bound,
          store: deps.store,
          parkRetryMs: retryMs,
          maxMessageBytes: config.maxMessageBytes,
          screen: senderScreen(config.accounts.map((a) => a.bank)),
          runId,
        },
      },
      signal,
    );
    await Promise.all([watcher, parked]);
  }

  /** What the mail store says: unreadable verified alerts of the last 24 h, mail waiting for DNS. */
  async function mailNotes(): Promise<{ unread?: string; parked?: string }> {
    const unread = await deps.store.unreadSince(deps.clock.now() - 24 * HOUR_MS);
    const parked = await deps.store.parkedCount(key);
    return {
      ...(unread.length
        ? { unread: unread.map((u) => `${u.count} ${u.bank.toUpperCase()} alert${u.count === 1 ? '' : 's'} in the last 24 h could not be read — has the template changed?`).join('; ') }
        : {}),
      ...(parked ? { parked: `${parked} alert${parked === 1 ? '' : 's'} parked until the bank's DNS answers` } : {}),
    };
  }

  async function checkImap(signal: AbortSignal): Promise<DoctorResult> {
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
  }
}
