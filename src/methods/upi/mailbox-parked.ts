import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import type { AlertVerdict } from './alert.ts';
import type { ParkedMail, UpiMailStore } from './mail-store.ts';
import { creditToPayment } from './adapt.ts';
import { rejection } from './mailbox-outcome.ts';
import { inspectSafely } from './mailbox-sync.ts';

export interface ParkedContext {
  /** Checkpoint key of the mailbox whose parked mail this is. */
  key: string;
  vpa: string;
  ledger: Ledger;
  store: UpiMailStore;
  clock: Clock;
  log: Logger;
  inspect: (raw: Buffer, receivedAt?: number) => Promise<AlertVerdict>;
  /** After this long parked (methods.UPI.dkim.retryHours), a message is rejected `dns_unresolved`, ms. */
  giveUpMs: number;
  /** Delay before the second look; doubles per attempt up to maxRetryMs. */
  retryMs: number;
  maxRetryMs: number;
  /** Messages per pass: a pass stays short even after a long DNS outage. */
  batch?: number;
  /** This source run; see SyncContext.runId. */
  runId?: string;
}

/** Delay after attempt k (1-based) of a parked message: retryMs doubling, capped. */
export const parkedRetryDelay = (attempts: number, context: Pick<ParkedContext, 'retryMs' | 'maxRetryMs'>): number =>
  Math.min(context.maxRetryMs, context.retryMs * 2 ** Math.max(0, attempts - 1));

/**
 * One pass over the parked mail that is due: each message is inspected again from its stored raw
 * bytes (no IMAP needed) and gets its final outcome, or a later attempt, or — past giveUpMs — the
 * rejection `dns_unresolved` with its raw bytes. Outcomes are written before the row is released,
 * so a crash repeats a message (absorbed by the ledger's unique refs) and never loses one.
 */
export async function retryParked(context: ParkedContext): Promise<{ settledOrKept: number; waiting: number }> {
  const due = await context.store.due(context.key, context.clock.now(), context.batch ?? 20);
  let settledOrKept = 0;
  let waiting = 0;
  for (const m of due) {
    const holder = await context.store.inspectingHolder(m.mailbox, m.ref);
    if (holder !== undefined && holder !== (context.runId ?? '')) {
      // Its last inspection took the process down: kept for the operator, never inspected again.
      context.log.error('a parked message took the process down while it was inspected; it is rejected', { ref: m.ref });
      await keep(context, m, context.clock.now(), 'inspector_crash', { parkedAt: new Date(m.parkedAt).toISOString(), attempts: m.attempts }, m.bank);
      await context.store.unmarkInspecting(m.mailbox, m.ref);
      settledOrKept += 1;
      continue;
    }
    await context.store.markInspecting({ mailbox: m.mailbox, ref: m.ref, uid: m.uid, startedAt: context.clock.now(), holder: context.runId ?? '' });
    let verdict: AlertVerdict;
    try {
      verdict = await inspectSafely({ uid: m.uid, source: m.raw, internalDate: m.receivedAt }, context);
    } catch (err) {
      await context.store.unmarkInspecting(m.mailbox, m.ref); // no verdict (the inspector could not start)
      throw err;
    }
    let outcome: 'waiting' | 'done';
    try {
      outcome = await decideParked(context, m, verdict);
    } finally {
      // Written or not (a database fault: tried again next pass), the inspection itself finished.
      await context.store.unmarkInspecting(m.mailbox, m.ref).catch(() => {});
    }
    if (outcome === 'waiting') waiting += 1;
    else settledOrKept += 1;
  }
  return { settledOrKept, waiting };
}

async function decideParked(c: ParkedContext, m: ParkedMail, verdict: AlertVerdict): Promise<'waiting' | 'done'> {
  const now = c.clock.now();
  if (verdict.kind === 'retry') {
    if (now - m.parkedAt >= c.giveUpMs) {
      await keep(c, m, now, 'dns_unresolved', { ...verdict.detail, lastError: verdict.reason, parkedAt: new Date(m.parkedAt).toISOString(), attempts: m.attempts + 1 }, verdict.bank);
      c.log.warn('parked mail rejected: the bank\'s DNS never answered', { ref: m.ref, attempts: m.attempts + 1 });
      return 'done';
    }
    await c.store.reschedule(m, m.attempts + 1, now + parkedRetryDelay(m.attempts, c), verdict.reason);
    return 'waiting';
  }
  await settle(c, m, verdict, now);
  await c.store.release(m);
  return 'done';
}

async function settle(c: ParkedContext, m: ParkedMail, v: Exclude<AlertVerdict, { kind: 'retry' }>, now: number): Promise<void> {
  switch (v.kind) {
    case 'credit': {
      const outcome = await c.ledger.ingest(creditToPayment(v, { vpa: c.vpa, uid: m.uid, observedAt: now, origin: { ref: m.ref, raw: m.raw } }));
      c.log.info('parked UPI credit alert ingested', { ref: m.ref, bank: v.bank, utr: v.utr, outcome: outcome.kind });
      return;
    }
    case 'reject':
      await c.ledger.reject(rejection({ uid: m.uid, source: m.raw }, { uidValidity: m.uidValidity, observedAt: now, reason: v.reason, bank: v.bank, detail: v.detail, authenticated: v.authenticated === true }));
      return;
    case 'unread':
      await c.store.noteUnread({ ref: m.ref, mailbox: m.mailbox, bank: v.bank, subject: String(v.detail?.subject ?? ''), raw: m.raw, observedAt: now });
      c.log.warn('a verified bank alert matched no template: has the template changed?', { ref: m.ref, bank: v.bank });
      return;
    case 'ignore':
      return;
  }
}

async function keep(c: ParkedContext, m: ParkedMail, now: number, reason: string, detail: Record<string, unknown>, bank?: string): Promise<void> {
  await c.ledger.reject(rejection({ uid: m.uid, source: m.raw }, { uidValidity: m.uidValidity, observedAt: now, reason, bank: bank ?? m.bank, detail }));
  await c.store.release(m);
}
