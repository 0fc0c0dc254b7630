import type { Resolved } from '../../config/secret.ts';
import type { UpiMethodConfig } from '../../config/schema.ts';
import type { DoctorResult, PaymentSource, SourceDeps } from '../source.ts';
import type { AlertVerdict, DnsResolver, InspectOptions } from './alert.ts';
import { createDnsResolver } from './dns.ts';
import { inspectAlert } from './inspect.ts';
import { runLoop } from '../../workers/loop.ts';
import type { UpiMailStore } from './mail-store.ts';
import { imapConnector, type ImapFactory } from './mailbox-client.ts';
import { checkpointKey } from './mailbox-checkpoint.ts';
import { describeImapFailure } from './mailbox-errors.ts';
import { retryParked } from './mailbox-parked.ts';
import { watchMailbox, type Backoff } from './mailbox-watcher.ts';

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
}

const DNS_TIMEOUT_MS = 5_000;
const MAX_PARKED_RETRY_MS = 3_600_000;
const HOUR_MS = 3_600_000;

/** The UPI source: watches the merchant's mailbox for bank credit alerts. */
export function createUpiSource(config: UpiSourceConfig, deps: UpiSourceDeps): PaymentSource {
  const imap = {
    host: config.imap.host,
    port: config.imap.port,
    secure: config.imap.secure,
    user: config.imap.user,
    password: config.imap.password,
    mailbox: config.imap.mailbox,
  };
  const where = { host: imap.host, port: imap.port, user: imap.user, mailbox: imap.mailbox };
  const connect = imapConnector(imap, deps.imapFactory);
  const key = checkpointKey(imap);
  const log = deps.log.child({ source: 'upi-imap', mailbox: `${imap.user}@${imap.host}/${imap.mailbox}` });

  return {
    name: 'upi-imap',

    async run(signal) {
      const inspect = deps.inspect ?? inspectAlert;
      const resolver = deps.resolver ?? createDnsResolver(config.dkim.dnsServers, deps.dnsTimeoutMs ?? DNS_TIMEOUT_MS);
      const opts = { accounts: config.accounts, alertRecipients: config.alertRecipients, dkimRequired: config.dkim.required, resolver };
      const bound = (raw: Buffer, receivedAt?: number) => inspect(raw, { ...opts, receivedAt });
      const retryMs = deps.retryMs ?? 30_000;
      // Parked mail is re-checked from its stored bytes on its own loop: it needs DNS, not IMAP.
      const parked = runLoop({
        name: 'parked UPI mail',
        intervalMs: Math.min(retryMs, 60_000),
        signal,
        log,
        random: deps.random,
        tick: async () => {
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
          });
        },
      });
      const watcher = watchMailbox(
        {
          where,
          connect,
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
          },
        },
        signal,
      );
      await Promise.all([watcher, parked]);
    },

    async check(signal): Promise<DoctorResult> {
      const imapResult = await checkImap(signal);
      const notes = await mailNotes();
      if (!notes.unread) return notes.parked ? { ...imapResult, message: `${imapResult.message}; ${notes.parked}` } : imapResult;
      // Template churn is loud: unreadable verified alerts fail the check.
      return { ok: false, message: [imapResult.message, notes.unread, notes.parked].filter(Boolean).join('; ') };
    },
  };

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
    const client = connect({ disableAutoIdle: true });
    client.on('error', () => {}); // the failure surfaces through the awaited call below
    const onAbort = () => client.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await client.connect();
      const st = await client.status(imap.mailbox, { messages: true, uidValidity: true, uidNext: true });
      if (!st) return { ok: false, message: describeImapFailure({ mailboxMissing: true }, where) };
      await client.logout();
      return {
        ok: true,
        message: `IMAP ${imap.user}@${imap.host}:${imap.port} OK; mailbox "${imap.mailbox}" holds ${st.messages ?? 0} messages (UIDVALIDITY ${st.uidValidity ?? '?'})`,
      };
    } catch (err) {
      if (signal.aborted) return { ok: false, message: 'IMAP check aborted' };
      return { ok: false, message: describeImapFailure(err, where) };
    } finally {
      signal.removeEventListener('abort', onAbort);
      client.close();
    }
  }
}
