import type { Resolved } from '../../config/secret.ts';
import type { UpiMethodConfig } from '../../config/schema.ts';
import type { DoctorResult, PaymentSource, SourceDeps } from '../source.ts';
import type { AlertVerdict, DnsResolver, InspectOptions } from './alert.ts';
import { createDnsResolver } from './dns.ts';
import { inspectAlert } from './inspect.ts';
import { defaultImapFactory, imapOptions, type ImapFactory } from './mailbox-client.ts';
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
}

const DNS_TIMEOUT_MS = 5_000;

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
  const factory = deps.imapFactory ?? defaultImapFactory;
  const log = deps.log.child({ source: 'upi-imap', mailbox: `${imap.user}@${imap.host}/${imap.mailbox}` });

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
      const client = factory({ ...imapOptions(imap), disableAutoIdle: true });
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
    },
  };
}
