import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import type { MailboxMessage } from './mailbox-outcome.ts';
import type { MailboxView } from './mailbox-sync.ts';

/** Builds one ImapFlow client; instances are single-use, so every (re)connect calls this again. */
export type ImapFactory = (options: ImapFlowOptions) => ImapFlow;
export const defaultImapFactory: ImapFactory = (options) => new ImapFlow(options);

/** A new, unconnected client for this mailbox; the watcher and the doctor check both build theirs here. */
export type ImapConnect = (extra?: Partial<ImapFlowOptions>) => ImapFlow;

export function imapConnector(settings: ImapSettings, factory: ImapFactory = defaultImapFactory): ImapConnect {
  return (extra = {}) => factory({ ...imapOptions(settings), ...extra });
}

export interface ImapSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: { reveal(): string };
}

/** IDLE as soon as the connection is free: imapflow's 15 s default is far over the ≤ 1 s push goal. */
export const AUTO_IDLE_DELAY_MS = 50;

export function imapOptions(s: ImapSettings): ImapFlowOptions {
  return {
    host: s.host,
    port: s.port,
    secure: s.secure,
    auth: { user: s.user, pass: s.password.reveal() },
    logger: false,
    autoIdleDelay: AUTO_IDLE_DELAY_MS,
    // Re-issue IDLE every 5 min (RFC 2177 asks for < 29 min); also bounds a silent half-open IDLE.
    maxIdleTime: 5 * 60_000,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    clientInfo: { name: 'payd' },
  };
}

/**
 * The selected mailbox as sync needs it. Call only while holding the mailbox lock.
 * Everything goes by UID and fetches use BODY.PEEK (imapflow's `source`), so \Seen is never set.
 */
export async function mailboxView(client: ImapFlow): Promise<MailboxView> {
  const box = client.mailbox;
  if (!box) throw new Error('no mailbox selected');
  let uidNext = Number(box.uidNext);
  if (!Number.isSafeInteger(uidNext) || uidNext < 1) {
    // Server sent no UIDNEXT: derive it from the highest UID (empty mailbox → 1).
    const last = await client.fetchOne('*', { uid: true }, { uid: true });
    uidNext = last ? last.uid + 1 : 1;
  }
  return {
    uidValidity: box.uidValidity.toString(),
    uidNext,
    async searchSince(since) {
      return (await client.search({ since }, { uid: true })) || [];
    },
    async searchFrom(from) {
      return (await client.search({ uid: `${from}:*` }, { uid: true })) || [];
    },
    async fetch(uid): Promise<MailboxMessage | undefined> {
      const msg = await client.fetchOne(String(uid), { uid: true, source: true, internalDate: true }, { uid: true });
      if (!msg || !msg.source || msg.uid !== uid) return undefined;
      const when = msg.internalDate ? new Date(msg.internalDate).getTime() : NaN;
      return { uid, source: msg.source, internalDate: Number.isFinite(when) ? when : undefined };
    },
  };
}
