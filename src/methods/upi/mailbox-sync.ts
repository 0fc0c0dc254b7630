import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { describeError } from '../../workers/loop.ts';
import type { AlertVerdict } from './alert.ts';
import type { UpiMailStore } from './mail-store.ts';
import { messageRef, readCheckpoint, type MailboxCheckpoint } from './mailbox-checkpoint.ts';
import { creditToPayment, rejection, type MailboxMessage } from './mailbox-outcome.ts';

/**
 * The few mailbox operations one sync needs, read under one mailbox lock. The imapflow
 * adapter is mailbox-client.ts; unit tests use an in-memory mailbox.
 */
export interface MailboxView {
  /** UIDVALIDITY of the selected mailbox, as a decimal string. */
  readonly uidValidity: string;
  /** UIDNEXT when the mailbox was selected: every message that existed then has a smaller UID. */
  readonly uidNext: number;
  /** UIDs whose INTERNALDATE falls on or after the day of `since` (IMAP SEARCH SINCE is day-granular). */
  searchSince(since: Date): Promise<number[]>;
  /** UIDs in `from:*`; may include the highest UID even when it is below `from` (the `*` quirk). */
  searchFrom(from: number): Promise<number[]>;
  /** One message by UID; undefined when it was expunged meanwhile. */
  fetch(uid: number): Promise<MailboxMessage | undefined>;
}

export interface SyncContext {
  /** Checkpoint key of this mailbox (mailbox-checkpoint.ts). */
  key: string;
  /** The merchant VPA: the receiver of every payment seen here. */
  vpa: string;
  backfillHours: number;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  /** The alert inspector with its options bound; receivedAt is the INTERNALDATE. */
  inspect: (raw: Buffer, receivedAt?: number) => Promise<AlertVerdict>;
  /** Parked and unreadable mail. */
  store: UpiMailStore;
  /** First re-check of a parked message this long after parking, ms. */
  parkRetryMs: number;
  signal?: AbortSignal;
}

export interface SyncResult {
  uidValidity: string;
  lastUid: number;
  ingested: number;
  rejected: number;
  ignored: number;
  /** Messages parked for another look (the bank's DNS did not answer); the sync went on past them. */
  parked: number;
  /** Verified bank mail no template reads. */
  unread: number;
}

/**
 * Brings the ledger up to date with the mailbox. Every message's outcome is written in the
 * same ledger call as the checkpoint that moves past it, so a crash at any point either
 * repeats a message (absorbed by the ledger's unique txRef / rejection ref) or loses nothing.
 */
export async function syncMailbox(view: MailboxView, ctx: SyncContext): Promise<SyncResult> {
  const stored = readCheckpoint(await ctx.ledger.loadCheckpoint(ctx.key));
  const result: SyncResult = { uidValidity: view.uidValidity, lastUid: 0, ingested: 0, rejected: 0, ignored: 0, parked: 0, unread: 0 };

  if (stored && stored.uidValidity === view.uidValidity) {
    result.lastUid = stored.lastUid;
  } else {
    // First start, or UIDVALIDITY changed (every stored UID is now meaningless): look back only
    // backfillHours, never at the whole mailbox; re-seen alerts are duplicates by txRef.
    if (stored) ctx.log.warn('mailbox UIDVALIDITY changed; rescanning recent mail', { from: stored.uidValidity, to: view.uidValidity });
    const cutoff = ctx.clock.now() - ctx.backfillHours * 3_600_000;
    const uids = ascending(await view.searchSince(new Date(cutoff)));
    await processUids(uids, cutoff, view, ctx, result);
    if (ctx.signal?.aborted) return result;
    // Older mail below UIDNEXT is deliberately skipped: mark it as behind us.
    const floor = Math.max(result.lastUid, view.uidNext - 1);
    await save(ctx, { uidValidity: view.uidValidity, lastUid: floor });
    result.lastUid = floor;
  }

  const from = result.lastUid + 1;
  const uids = ascending(await view.searchFrom(from)).filter((uid) => uid >= from);
  await processUids(uids, undefined, view, ctx, result);
  return result;
}

async function processUids(uids: number[], cutoff: number | undefined, view: MailboxView, ctx: SyncContext, result: SyncResult): Promise<void> {
  for (const uid of uids) {
    if (ctx.signal?.aborted) return;
    const msg = await view.fetch(uid);
    if (!msg) continue; // expunged since the search; the next outcome's checkpoint moves past it
    if (cutoff !== undefined && msg.internalDate !== undefined && msg.internalDate < cutoff) continue;
    const checkpoint = { key: ctx.key, value: { uidValidity: view.uidValidity, lastUid: uid } satisfies MailboxCheckpoint };
    const verdict = await inspectSafely(msg, ctx);
    const observedAt = ctx.clock.now();
    switch (verdict.kind) {
      case 'credit': {
        const outcome = await ctx.ledger.ingest(creditToPayment(verdict, { vpa: ctx.vpa, uid, observedAt, origin: { ref: messageRef(view.uidValidity, uid), raw: msg.source } }), checkpoint);
        ctx.log.info('UPI credit alert ingested', { uid, bank: verdict.bank, utr: verdict.utr, outcome: outcome.kind });
        result.ingested += 1;
        break;
      }
      case 'reject':
        await ctx.ledger.reject(rejection(msg, { uidValidity: view.uidValidity, observedAt, reason: verdict.reason, bank: verdict.bank, detail: verdict.detail }), checkpoint);
        ctx.log.warn('mail rejected as a payment alert', { uid, reason: verdict.reason, bank: verdict.bank });
        result.rejected += 1;
        break;
      case 'ignore':
        await ctx.ledger.saveCheckpoint(checkpoint);
        ctx.log.debug('mail ignored', { uid, reason: verdict.reason });
        result.ignored += 1;
        break;
      case 'unread':
        // Template churn must be loud: a warning now, and `payd doctor` counts these.
        await ctx.store.noteUnread({ ref: messageRef(view.uidValidity, uid), mailbox: ctx.key, bank: verdict.bank, subject: String(verdict.detail?.subject ?? ''), raw: msg.source, observedAt });
        await ctx.ledger.saveCheckpoint(checkpoint);
        ctx.log.warn('a verified bank alert matched no template: has the template changed?', { uid, bank: verdict.bank, subject: verdict.detail?.subject });
        result.unread += 1;
        break;
      case 'retry':
        // Parked with its raw bytes, then the checkpoint moves on: one message never holds up the
        // mailbox. The parked-mail loop looks at it again (mailbox-parked.ts). Park first: a crash
        // in between re-reads the message and parks it again (idempotent).
        await ctx.store.park({
          ref: messageRef(view.uidValidity, uid),
          mailbox: ctx.key,
          uidValidity: view.uidValidity,
          uid,
          raw: msg.source,
          ...(msg.internalDate !== undefined ? { receivedAt: msg.internalDate } : {}),
          ...(verdict.bank ? { bank: verdict.bank } : {}),
          reason: verdict.reason,
          parkedAt: observedAt,
          attempts: 1,
          nextAttemptAt: observedAt + ctx.parkRetryMs,
        });
        await ctx.ledger.saveCheckpoint(checkpoint);
        ctx.log.warn('mail parked: the bank\'s DNS did not answer; it will be checked again', { uid, reason: verdict.reason, bank: verdict.bank });
        result.parked += 1;
        break;
    }
    result.lastUid = uid;
  }
}

/** An inspector that throws has a bug, not a transient fault: keep the mail for the operator. */
export async function inspectSafely(msg: MailboxMessage, ctx: Pick<SyncContext, 'inspect' | 'log'>): Promise<AlertVerdict> {
  try {
    return await ctx.inspect(msg.source, msg.internalDate);
  } catch (err) {
    ctx.log.error('alert inspector failed', { uid: msg.uid, error: describeError(err) });
    return { kind: 'reject', reason: 'inspector_error', detail: { error: describeError(err) } };
  }
}

const save = (ctx: SyncContext, value: MailboxCheckpoint) => ctx.ledger.saveCheckpoint({ key: ctx.key, value });

const ascending = (uids: number[]): number[] => [...new Set(uids)].sort((a, b) => a - b);
