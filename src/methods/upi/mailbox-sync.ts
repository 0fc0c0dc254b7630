import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { describeError } from '../../workers/loop.ts';
import type { AlertVerdict } from './alert.ts';
import { readCheckpoint, type MailboxCheckpoint } from './mailbox-checkpoint.ts';
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
  signal?: AbortSignal;
}

export interface SyncResult {
  uidValidity: string;
  lastUid: number;
  ingested: number;
  rejected: number;
  ignored: number;
  /** Set when a message asked to be looked at again (DNS temperror); the sync stopped before it. */
  retry?: { uid: number; reason: string };
}

/**
 * Brings the ledger up to date with the mailbox. Every message's outcome is written in the
 * same ledger call as the checkpoint that moves past it, so a crash at any point either
 * repeats a message (absorbed by the ledger's unique txRef / rejection ref) or loses nothing.
 */
export async function syncMailbox(view: MailboxView, ctx: SyncContext): Promise<SyncResult> {
  const stored = readCheckpoint(await ctx.ledger.loadCheckpoint(ctx.key));
  const result: SyncResult = { uidValidity: view.uidValidity, lastUid: 0, ingested: 0, rejected: 0, ignored: 0 };

  if (stored && stored.uidValidity === view.uidValidity) {
    result.lastUid = stored.lastUid;
  } else {
    // First start, or UIDVALIDITY changed (every stored UID is now meaningless): look back only
    // backfillHours, never at the whole mailbox; re-seen alerts are duplicates by txRef.
    if (stored) ctx.log.warn('mailbox UIDVALIDITY changed; rescanning recent mail', { from: stored.uidValidity, to: view.uidValidity });
    const cutoff = ctx.clock.now() - ctx.backfillHours * 3_600_000;
    const uids = ascending(await view.searchSince(new Date(cutoff)));
    await processUids(uids, cutoff, view, ctx, result);
    if (result.retry) return result;
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
        const outcome = await ctx.ledger.ingest(creditToPayment(verdict, { vpa: ctx.vpa, uid, observedAt }), checkpoint);
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
      case 'retry':
        // Do not move past it: the ledger has no retry queue, and advancing would lose a real
        // alert whose DKIM key could not be fetched. Later mail waits until DNS answers.
        ctx.log.warn('mail needs another look later; sync paused at it', { uid, reason: verdict.reason });
        result.retry = { uid, reason: verdict.reason };
        return;
    }
    result.lastUid = uid;
  }
}

/** An inspector that throws has a bug, not a transient fault: keep the mail for the operator. */
async function inspectSafely(msg: MailboxMessage, ctx: SyncContext): Promise<AlertVerdict> {
  try {
    return await ctx.inspect(msg.source, msg.internalDate);
  } catch (err) {
    ctx.log.error('alert inspector failed', { uid: msg.uid, error: describeError(err) });
    return { kind: 'reject', reason: 'inspector_error', detail: { error: describeError(err) } };
  }
}

const save = (ctx: SyncContext, value: MailboxCheckpoint) => ctx.ledger.saveCheckpoint({ key: ctx.key, value });

const ascending = (uids: number[]): number[] => [...new Set(uids)].sort((a, b) => a - b);
