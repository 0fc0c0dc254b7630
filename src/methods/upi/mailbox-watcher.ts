import type { Logger, Random } from '../../domain/ports.ts';
import { cycleReporterOf } from '../../runtime/cycle.ts';
import { jittered, sleep } from '../../runtime/sleep.ts';
import { runLoop } from '../../runtime/loop.ts';
import { WakeSignal } from '../../runtime/wake.ts';
import { connectImap, mailboxView, type ImapFactory, type ImapSettings } from './mailbox-client.ts';
import { describeImapFailure } from './mailbox-errors.ts';
import { syncMailbox, type SyncContext } from './mailbox-sync.ts';

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

export interface WatcherOptions {
  imap: ImapSettings & { mailbox: string };
  /** Builds each single-use client; connectImap (mailbox-client.ts) is the one place it is signed in. */
  factory: ImapFactory;
  sync: Omit<SyncContext, 'signal'>;
  log: Logger;
  random: Random;
  /** Safety-net re-sync period: a half-open connection can stop delivering EXISTS silently. */
  resyncMs: number;
  /** Reconnect backoff after failed connections; a connection that had synced reconnects after baseMs. */
  backoff: Backoff;
}

/**
 * Keeps one mailbox in sync until the signal aborts, on the one loop primitive: each tick is one
 * connection's life (connect, sync, IDLE, sync on every EXISTS push and on a timer). A tick that
 * never synced fails, so runLoop backs off with jitter; a healthy connection that later drops ends
 * its tick normally and the next one reconnects after baseMs. Never throws for upstream faults.
 */
export async function watchMailbox(options: WatcherOptions, signal: AbortSignal): Promise<void> {
  const where = { host: options.imap.host, port: options.imap.port, user: options.imap.user, mailbox: options.imap.mailbox };
  // A tick is a whole connection's life: each completed sync is a cycle (for /readyz), and the
  // re-sync period, not the reconnect delay, is the interval a healthy mailbox is held to.
  const report = cycleReporterOf(signal);
  await runLoop({
    name: 'mailbox watcher',
    intervalMs: options.backoff.baseMs,
    backoff: options.backoff,
    signal,
    log: options.log,
    random: options.random,
    tick: async (s) => {
      let synced = false;
      report?.interval(options.resyncMs);
      try {
        await session(options, s, (startedAt) => {
          synced = true;
          report?.ok();
          // The mailbox as it was when the sync began is read: the lag counts from there.
          report?.caughtUp?.(startedAt);
        });
      } catch (err) {
        if (s.aborted) return;
        const error = describeImapFailure(err, where);
        // A session that synced was healthy: reconnect promptly instead of backing off.
        if (synced) return options.log.warn('mailbox connection lost; reconnecting', { error });
        // Keep "only the operator can fix this" (a revoked refresh token) for readiness.
        throw Object.assign(new Error(error), { needsOperator: (err as { needsOperator?: unknown })?.needsOperator === true });
      }
    },
  });
}

/** One connection's life. Returns only on abort; throws when the connection fails or closes. */
async function session(o: WatcherOptions, signal: AbortSignal, onSynced: (startedAt: number) => void): Promise<void> {
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
      let startedAt = 0;
      if (closed) throw lastError ?? Object.assign(new Error('IMAP connection closed'), { code: 'NoConnection' });
      // readOnly selects with EXAMINE: payd never changes flags (\Seen belongs to the merchant).
      const lock = await client.getMailboxLock(o.imap.mailbox, { readOnly: true });
      try {
        // A sync not caused by a push (the timer) selects the mailbox again: the server does not
        // tell an open session that its mailbox was deleted and re-created (new UIDVALIDITY), and
        // the round trip proves the connection is still alive.
        if (!first && !pushed) await client.mailboxOpen(o.imap.mailbox, { readOnly: true });
        first = false;
        pushed = false;
        startedAt = o.sync.clock.now();
        await syncMailbox(await mailboxView(client), { ...o.sync, signal });
      } finally {
        lock.release(); // auto-IDLE starts AUTO_IDLE_DELAY_MS after this
      }
      onSynced(startedAt);
      await sleep(jittered(o.resyncMs, o.random), signal, wake);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!closed) client.close();
  }
}
