import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { describeError } from '../../domain/errors.ts';
import type { AlertVerdict } from './alert.ts';
import type { UpiMailStore } from './mail-store.ts';
import { messageRef, readCheckpoint, type MailboxCheckpoint } from './mailbox-checkpoint.ts';
import { creditToPayment } from './adapt.ts';
import { rejection, type MailboxEnvelope, type MailboxMessage } from './mailbox-outcome.ts';
import { headerBlock } from './mail-headers.ts';
import { InspectorUnavailable } from './inspector-pool.ts';

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
  /** Size and arrival time of one message, nothing of its bytes; undefined when it was expunged meanwhile. */
  envelope(uid: number): Promise<MailboxEnvelope | undefined>;
  /** The first `maxBytes` of one message (IMAP partial fetch); undefined when it was expunged meanwhile. */
  head(uid: number, maxBytes: number): Promise<Buffer | undefined>;
  /** One message by UID, at most `maxBytes` of it; undefined when it was expunged meanwhile. */
  fetch(uid: number, maxBytes: number): Promise<MailboxMessage | undefined>;
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
  /** Larger mail (RFC822.SIZE) is rejected `too_large` without being fetched (methods.UPI.maxMessageBytes). */
  maxMessageBytes: number;
  /**
   * Decides from the header block alone whether a message is worth fetching and parsing: a reason
   * to reject it (`unknown_sender`), or undefined. Default: every message is inspected.
   */
  screen?: (head: string) => { reason: string; detail?: Record<string, unknown> } | undefined;
  /**
   * This source run (a random id per start): a message marked as being inspected by another run
   * took that process down. Default '' (tests).
   */
  runId?: string;
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

/** Bytes fetched to read a message's header block before deciding to fetch the rest; also the header size limit. */
export const HEAD_BYTES = 64 * 1024;

async function processUids(uids: number[], cutoff: number | undefined, view: MailboxView, ctx: SyncContext, result: SyncResult): Promise<void> {
  for (const uid of uids) {
    if (ctx.signal?.aborted) return;
    const env = await view.envelope(uid);
    if (!env) continue; // expunged since the search; the next outcome's checkpoint moves past it
    if (cutoff !== undefined && env.internalDate !== undefined && env.internalDate < cutoff) continue;
    const ref = messageRef(view.uidValidity, uid);
    const decided = await decide(env, ref, view, ctx);
    if (!decided) continue; // expunged meanwhile
    try {
      await record(decided.verdict, decided.msg, view, ctx, result);
    } catch (err) {
      // No outcome written (the database failed): the message is tried again, and was no crash.
      if (decided.marked) await ctx.store.unmarkInspecting(ctx.key, ref).catch(() => {});
      throw err;
    }
    if (decided.marked) await ctx.store.unmarkInspecting(ctx.key, ref);
    result.lastUid = uid;
  }
}

type Decided = { verdict: AlertVerdict; msg: { uid: number; source?: Buffer; internalDate?: number }; marked: boolean };

/**
 * The cheap checks first, each before the bytes it would cost: a mark left by a crash, the size
 * (RFC822.SIZE), the sender (64 KiB of header); only then the whole message goes to the inspector,
 * marked as being inspected until its outcome is written.
 */
async function decide(env: MailboxEnvelope, ref: string, view: MailboxView, ctx: SyncContext): Promise<Decided | undefined> {
  const { uid } = env;
  const reject = (reason: string, detail: Record<string, unknown>, source?: Buffer): Decided => ({
    verdict: { kind: 'reject', reason, detail },
    msg: { uid, ...(source ? { source } : {}), ...(env.internalDate !== undefined ? { internalDate: env.internalDate } : {}) },
    marked: false,
  });
  const holder = await ctx.store.inspectingHolder(ctx.key, ref);
  if (holder !== undefined && holder !== (ctx.runId ?? '')) {
    // The last inspection of this message never finished: the process died on it. Never again.
    ctx.log.error('a message took the process down while it was inspected; it is rejected and skipped', { uid });
    const head = await view.head(uid, HEAD_BYTES);
    return { ...reject('inspector_crash', { size: env.size }, head), marked: true };
  }
  if (env.size > ctx.maxMessageBytes) return reject('too_large', { size: env.size, maxMessageBytes: ctx.maxMessageBytes });
  const head = await view.head(uid, HEAD_BYTES);
  if (!head) return undefined;
  const headers = headerBlock(head) ?? (head.length < HEAD_BYTES ? head.toString('latin1') : undefined);
  if (headers === undefined) return reject('too_large', { why: `header block over ${HEAD_BYTES} bytes`, size: env.size }, head);
  const screened = ctx.screen?.(headers);
  if (screened) return reject(screened.reason, screened.detail ?? {}, head);

  await ctx.store.markInspecting({ mailbox: ctx.key, ref, uid, startedAt: ctx.clock.now(), holder: ctx.runId ?? '' });
  const unmark = () => ctx.store.unmarkInspecting(ctx.key, ref);
  const msg = await view.fetch(uid, ctx.maxMessageBytes + 1);
  if (!msg) return void (await unmark());
  // RFC822.SIZE was under the limit; the bytes are checked again.
  if (msg.source.length > ctx.maxMessageBytes) return { ...reject('too_large', { size: msg.source.length, maxMessageBytes: ctx.maxMessageBytes }, head), marked: true };
  try {
    return { verdict: await inspectSafely(msg, ctx), msg, marked: true };
  } catch (err) {
    await unmark(); // no verdict (the inspector could not start): tried again, not a crash
    throw err;
  }
}

/** Writes one message's outcome together with the checkpoint past it. */
async function record(verdict: AlertVerdict, msg: Decided['msg'], view: MailboxView, ctx: SyncContext, result: SyncResult): Promise<void> {
  const { uid } = msg;
  const checkpoint = { key: ctx.key, value: { uidValidity: view.uidValidity, lastUid: uid } satisfies MailboxCheckpoint };
  const observedAt = ctx.clock.now();
  switch (verdict.kind) {
    case 'credit': {
      const outcome = await ctx.ledger.ingest(creditToPayment(verdict, { vpa: ctx.vpa, uid, observedAt, origin: { ref: messageRef(view.uidValidity, uid), raw: msg.source! } }), checkpoint);
      ctx.log.info('UPI credit alert ingested', { uid, bank: verdict.bank, utr: verdict.utr, outcome: outcome.kind });
      result.ingested += 1;
      return;
    }
    case 'reject':
      await ctx.ledger.reject(
        rejection(msg, { uidValidity: view.uidValidity, observedAt, reason: verdict.reason, bank: verdict.bank, detail: verdict.detail, authenticated: verdict.authenticated === true }),
        checkpoint,
      );
      ctx.log.warn('mail rejected as a payment alert', { uid, reason: verdict.reason, bank: verdict.bank });
      result.rejected += 1;
      return;
    case 'ignore':
      await ctx.ledger.saveCheckpoint(checkpoint);
      ctx.log.debug('mail ignored', { uid, reason: verdict.reason });
      result.ignored += 1;
      return;
    case 'unread':
      // Template churn must be loud: a warning now, and `payd doctor` counts these.
      await ctx.store.noteUnread({ ref: messageRef(view.uidValidity, uid), mailbox: ctx.key, bank: verdict.bank, subject: String(verdict.detail?.subject ?? ''), raw: msg.source!, observedAt });
      await ctx.ledger.saveCheckpoint(checkpoint);
      ctx.log.warn('a verified bank alert matched no template: has the template changed?', { uid, bank: verdict.bank, subject: verdict.detail?.subject });
      result.unread += 1;
      return;
    case 'retry':
      // Parked with its raw bytes, then the checkpoint moves on: one message never holds up the
      // mailbox. The parked-mail loop looks at it again (mailbox-parked.ts). Park first: a crash
      // in between re-reads the message and parks it again (idempotent).
      await ctx.store.park({
        ref: messageRef(view.uidValidity, uid),
        mailbox: ctx.key,
        uidValidity: view.uidValidity,
        uid,
        raw: msg.source!,
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
      return;
  }
}

/**
 * An inspector that throws has a bug, not a transient fault: keep the mail for the operator. An
 * inspector that could not start at all gave no verdict: that error goes up (the sync is retried).
 */
export async function inspectSafely(msg: MailboxMessage, ctx: Pick<SyncContext, 'inspect' | 'log'>): Promise<AlertVerdict> {
  try {
    return await ctx.inspect(msg.source, msg.internalDate);
  } catch (err) {
    if (err instanceof InspectorUnavailable) throw err;
    ctx.log.error('alert inspector failed', { uid: msg.uid, error: describeError(err) });
    return { kind: 'reject', reason: 'inspector_error', detail: { error: describeError(err) } };
  }
}

const save = (ctx: SyncContext, value: MailboxCheckpoint) => ctx.ledger.saveCheckpoint({ key: ctx.key, value });

const ascending = (uids: number[]): number[] => [...new Set(uids)].sort((a, b) => a - b);
