import type { Logger, Random } from '../../domain/ports.ts';
import { jittered, sleep, WakeSignal } from '../../workers/loop.ts';
import { connectImap, mailboxView, type ImapFactory, type ImapSettings } from './mailbox-client.ts';
import { describeImapFailure } from './mailbox-errors.ts';
import { syncMailbox, type SyncContext } from './mailbox-sync.ts';

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

export interface WatcherOptions {
  imap: ImapSettings & { mailbox: string };
  factory: ImapFactory;
  sync: Omit<SyncContext, 'signal'>;
  log: Logger;
  random: Random;
  /** Safety-net re-sync period: a half-open connection can stop delivering EXISTS silently. */
  resyncMs: number;
  /** Next attempt after a message asked to be retried (DNS temperror). */
  retryMs: number;
  backoff: Backoff;
}

/** Delay before reconnect attempt k (1-based): exponential, capped, ±20 % jitter. */
export const reconnectDelay = (failures: number, random: Random, b: Backoff): number =>
  jittered(Math.min(b.maxMs, b.baseMs * 2 ** Math.max(0, failures - 1)), random);

/**
 * Keeps one mailbox in sync until the signal aborts: connect, sync, IDLE, sync on every
 * EXISTS push and on a timer; on any connection fault build a new client after a backoff.
 * Never throws for upstream faults.
 */
export async function watchMailbox(o: WatcherOptions, signal: AbortSignal): Promise<void> {
  const where = { host: o.imap.host, port: o.imap.port, user: o.imap.user, mailbox: o.imap.mailbox };
  let failures = 0;
  while (!signal.aborted) {
    let synced = false;
    try {
      await session(o, signal, () => {
        if (failures > 0) o.log.info('mailbox connection recovered', { after_failures: failures });
        failures = 0;
        synced = true;
      });
    } catch (err) {
      if (signal.aborted) break;
      // A session that synced was healthy: start the backoff over.
      failures = synced ? 1 : failures + 1;
      const delay = reconnectDelay(failures, o.random, o.backoff);
      o.log.warn('mailbox connection lost; reconnecting', { error: describeImapFailure(err, where), failures, retry_in_ms: Math.round(delay) });
      await sleep(delay, signal);
    }
  }
}

/** One connection's life. Returns only on abort; throws when the connection fails or closes. */
async function session(o: WatcherOptions, signal: AbortSignal, onSynced: () => void): Promise<void> {
  // Credentials are asked for on every connect: an OAuth token that expired meanwhile is renewed first.
  const client = await connectImap(o.imap, o.factory, signal);
  const wake = new WakeSignal();
  let closed = client.usable === false; // closed between connect and here
  let lastError: unknown;
  // Listeners live on this instance only; the next session builds a fresh client.
  client.on('error', (err: unknown) => {
    lastError = err;
  });
  client.on('close', () => {
    closed = true;
    wake.wake();
  });
  // Only a nudge: the work runs in the loop below, one sync at a time.
  let pushed = false;
  client.on('exists', () => {
    pushed = true;
    wake.wake();
  });
  const onAbort = () => client.close();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    let first = true;
    while (!signal.aborted) {
      if (closed) throw lastError ?? Object.assign(new Error('IMAP connection closed'), { code: 'NoConnection' });
      // readOnly selects with EXAMINE: payd never changes flags (\Seen belongs to the merchant).
      const lock = await client.getMailboxLock(o.imap.mailbox, { readOnly: true });
      let retry = false;
      try {
        // A sync not caused by a push (timer, retry) selects the mailbox again: the server does not
        // tell an open session that its mailbox was deleted and re-created (new UIDVALIDITY), and
        // the round trip proves the connection is still alive.
        if (!first && !pushed) await client.mailboxOpen(o.imap.mailbox, { readOnly: true });
        first = false;
        pushed = false;
        const result = await syncMailbox(await mailboxView(client), { ...o.sync, signal });
        retry = result.retry !== undefined;
      } finally {
        lock.release(); // auto-IDLE starts AUTO_IDLE_DELAY_MS after this
      }
      onSynced();
      await sleep(jittered(retry ? o.retryMs : o.resyncMs, o.random), signal, wake);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!closed) client.close();
  }
}
