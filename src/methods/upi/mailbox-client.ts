import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import { PaydError } from '../../domain/errors.ts';
import type { MailboxEnvelope, MailboxMessage } from './mailbox-outcome.ts';
import type { MailboxView } from './mailbox-sync.ts';

/** Builds one ImapFlow client; instances are single-use, so every (re)connect calls this again. */
export type ImapFactory = (options: ImapFlowOptions) => ImapFlow;
export const defaultImapFactory: ImapFactory = (options) => new ImapFlow(options);

export interface ImapServer {
  host: string;
  port: number;
  secure: boolean;
  user: string;
}

export interface ImapSettings extends ImapServer {
  credentials: ImapCredentials;
}

/** imapflow's `auth`: a password (LOGIN / AUTHENTICATE PLAIN) or an OAuth 2.0 access token (XOAUTH2 / OAUTHBEARER). */
export type ImapAuth = { user: string; pass: string } | { user: string; accessToken: string };

/** How payd signs in; asked again before every connection, so an OAuth token is fresh on reconnect. */
export interface ImapCredentials {
  auth(signal: AbortSignal): Promise<ImapAuth>;
  /** The server refused the last credentials: forget them. True when fresh ones are worth one more try. */
  refused(): boolean;
  /** What to check when the server refuses even fresh credentials (part of the operator's message). */
  readonly hint: string;
}

export const passwordCredentials = (user: string, password: { reveal(): string }): ImapCredentials => ({
  auth: async () => ({ user, pass: password.reveal() }),
  refused: () => false,
  hint: 'check imap.user / imap.password',
});

/** OAuth sign-in: a cached access token, renewed before it expires and once more when the server refuses it. */
export const oauthCredentials = (user: string, tokens: { get(signal?: AbortSignal): Promise<string>; invalidate(): void }, scope: string): ImapCredentials => ({
  auth: async (signal) => ({ user, accessToken: await tokens.get(signal) }),
  refused() {
    tokens.invalidate();
    return true;
  },
  hint: `the server refused a freshly issued OAuth access token: check that imap.user is the mailbox the token was issued for, that IMAP is enabled for it, and the scope "${scope}"`,
});

/** IDLE as soon as the connection is free: imapflow's 15 s default is far over the ≤ 1 s push goal. */
export const AUTO_IDLE_DELAY_MS = 50;

export function imapOptions(server: ImapServer, auth: ImapAuth): ImapFlowOptions {
  return {
    host: server.host,
    port: server.port,
    secure: server.secure,
    auth,
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
 * Builds a client with fresh credentials and connects it (LOGIN / AUTHENTICATE included).
 * An OAuth login the server refuses is tried once more with a newly refreshed token: a provider
 * can revoke an access token before its expiry. The client has a no-op 'error' listener (failures
 * surface through the awaited calls); the caller adds its own listeners and closes it.
 */
export async function connectImap(settings: ImapSettings, factory: ImapFactory, signal: AbortSignal, extra: Partial<ImapFlowOptions> = {}): Promise<ImapFlow> {
  for (let attempt = 1; ; attempt++) {
    const auth = await settings.credentials.auth(signal);
    const client = factory({ ...imapOptions(settings, auth), ...extra });
    client.on('error', () => {});
    const onAbort = () => client.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await client.connect();
      return client;
    } catch (err) {
      client.close();
      const e = err as { authenticationFailed?: boolean; serverResponseCode?: string };
      // [UNAVAILABLE] (RFC 5530): the server could not check the credentials now; they may be fine.
      if (!e.authenticationFailed || e.serverResponseCode === 'UNAVAILABLE' || signal.aborted) throw err;
      if (attempt === 1 && settings.credentials.refused()) continue;
      throw new PaydError('UPSTREAM', `IMAP login failed for ${settings.user} at ${settings.host}:${settings.port}: authentication failed (${settings.credentials.hint})`, { cause: err });
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
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
    async envelope(uid): Promise<MailboxEnvelope | undefined> {
      const msg = await client.fetchOne(String(uid), { uid: true, size: true, internalDate: true }, { uid: true });
      if (!msg || msg.uid !== uid || typeof msg.size !== 'number') return undefined;
      return { uid, size: msg.size, ...dated(msg.internalDate) };
    },
    async head(uid, maxBytes) {
      // BODY.PEEK[]<0.maxBytes>: never more than that crosses the wire, whatever the message's size.
      const msg = await client.fetchOne(String(uid), { uid: true, source: { maxLength: maxBytes } }, { uid: true });
      if (!msg || !msg.source || msg.uid !== uid) return undefined;
      return msg.source;
    },
    async fetch(uid, maxBytes): Promise<MailboxMessage | undefined> {
      const msg = await client.fetchOne(String(uid), { uid: true, source: { maxLength: maxBytes }, internalDate: true }, { uid: true });
      if (!msg || !msg.source || msg.uid !== uid) return undefined;
      return { uid, source: msg.source, ...dated(msg.internalDate) };
    },
  };
}

function dated(internalDate: Date | string | undefined): { internalDate?: number } {
  const when = internalDate ? new Date(internalDate).getTime() : NaN;
  return Number.isFinite(when) ? { internalDate: when } : {};
}
