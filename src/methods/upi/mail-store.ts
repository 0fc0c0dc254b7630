import type { Db } from '../../db/open.ts';

/** A message whose verdict waits for the bank's DNS; kept with its raw source. Key: (mailbox, ref). */
export interface ParkedMail {
  /** messageRef(uidValidity, uid): also the ref of its rejection, if it comes to that. */
  ref: string;
  /** Checkpoint key of the mailbox it came from. */
  mailbox: string;
  uidValidity: string;
  uid: number;
  raw: Buffer;
  receivedAt?: number;
  bank?: string;
  reason: string;
  parkedAt: number;
  attempts: number;
  nextAttemptAt: number;
}

export interface UnreadAlert {
  ref: string;
  mailbox: string;
  bank: string;
  subject?: string;
  raw: Buffer;
  observedAt: number;
}

/** What the UPI source keeps beside the ledger: parked mail and unreadable bank alerts. */
export interface UpiMailStore {
  /** Idempotent on ref: parking a message again keeps the first parking time. */
  park(m: ParkedMail): Promise<void>;
  /** Parked messages of this mailbox whose next attempt is due, oldest first. */
  due(mailbox: string, now: number, limit: number): Promise<ParkedMail[]>;
  reschedule(m: ParkedMail, attempts: number, nextAttemptAt: number, reason: string): Promise<void>;
  /** The message has its outcome in the ledger. */
  release(m: ParkedMail): Promise<void>;
  parkedCount(mailbox: string): Promise<number>;
  noteUnread(u: UnreadAlert): Promise<void>;
  /** Unreadable verified alerts per bank since `since` (ms). */
  unreadSince(since: number): Promise<{ bank: string; count: number }[]>;
  /** Marks a message as being inspected by run `holder` (idempotent); see inspectingHolder. */
  markInspecting(m: { mailbox: string; ref: string; uid: number; startedAt: number; holder: string }): Promise<void>;
  /** Who marked this message as being inspected; a mark of another run means the process died inspecting it. */
  inspectingHolder(mailbox: string, ref: string): Promise<string | undefined>;
  /** The message has its outcome (or the mark is stale: at or below the checkpoint). */
  unmarkInspecting(mailbox: string, ref: string): Promise<void>;
  /** Housekeeping: rejected mail observed before `before` (ms) is deleted; returns how many. */
  pruneRejected(before: number): Promise<number>;
}

export function createUpiMailStore(db: Db): UpiMailStore {
  return {
    async park(m) {
      await db
        .insertInto('upi_parked_mail')
        .values({
          ref: m.ref,
          mailbox: m.mailbox,
          uid_validity: m.uidValidity,
          uid: m.uid,
          raw: m.raw,
          received_at: m.receivedAt ?? null,
          bank: m.bank ?? null,
          reason: m.reason,
          parked_at: m.parkedAt,
          attempts: m.attempts,
          next_attempt_at: m.nextAttemptAt,
        })
        .onConflict((oc) => oc.columns(['mailbox', 'ref']).doNothing())
        .execute();
    },

    async due(mailbox, now, limit) {
      const rows = await db
        .selectFrom('upi_parked_mail')
        .selectAll()
        .where('mailbox', '=', mailbox)
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        ref: r.ref,
        mailbox: r.mailbox,
        uidValidity: r.uid_validity,
        uid: Number(r.uid),
        raw: Buffer.from(r.raw),
        ...(r.received_at !== null ? { receivedAt: Number(r.received_at) } : {}),
        ...(r.bank !== null ? { bank: r.bank } : {}),
        reason: r.reason,
        parkedAt: Number(r.parked_at),
        attempts: Number(r.attempts),
        nextAttemptAt: Number(r.next_attempt_at),
      }));
    },

    async reschedule(m, attempts, nextAttemptAt, reason) {
      await db.updateTable('upi_parked_mail').set({ attempts, next_attempt_at: nextAttemptAt, reason }).where('mailbox', '=', m.mailbox).where('ref', '=', m.ref).execute();
    },

    async release(m) {
      await db.deleteFrom('upi_parked_mail').where('mailbox', '=', m.mailbox).where('ref', '=', m.ref).execute();
    },

    async parkedCount(mailbox) {
      const row = await db.selectFrom('upi_parked_mail').select((eb) => eb.fn.countAll<number>().as('n')).where('mailbox', '=', mailbox).executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async noteUnread(u) {
      await db
        .insertInto('upi_unread_alerts')
        .values({ ref: u.ref, mailbox: u.mailbox, bank: u.bank, subject: u.subject ?? null, raw: u.raw, observed_at: u.observedAt })
        .onConflict((oc) => oc.columns(['mailbox', 'ref']).doNothing())
        .execute();
    },

    async unreadSince(since) {
      const rows = await db
        .selectFrom('upi_unread_alerts')
        .select(['bank', (eb) => eb.fn.countAll<number>().as('n')])
        .where('observed_at', '>=', since)
        .groupBy('bank')
        .orderBy('bank')
        .execute();
      return rows.map((r) => ({ bank: r.bank, count: Number(r.n) }));
    },

    async markInspecting(m) {
      await db
        .insertInto('upi_inspecting')
        .values({ mailbox: m.mailbox, ref: m.ref, uid: m.uid, started_at: m.startedAt, holder: m.holder })
        .onConflict((oc) => oc.columns(['mailbox', 'ref']).doNothing())
        .execute();
    },

    async inspectingHolder(mailbox, ref) {
      const row = await db.selectFrom('upi_inspecting').select('holder').where('mailbox', '=', mailbox).where('ref', '=', ref).executeTakeFirst();
      return row?.holder;
    },

    async unmarkInspecting(mailbox, ref) {
      await db.deleteFrom('upi_inspecting').where('mailbox', '=', mailbox).where('ref', '=', ref).execute();
    },

    // The rejections table belongs to the ledger; this deletes only mail (source 'imap'), by age,
    // so that forged mail anyone can send does not fill the disk.
    async pruneRejected(before) {
      const res = await db.deleteFrom('rejections').where('source', '=', 'imap').where('observed_at', '<', before).executeTakeFirst();
      return Number(res.numDeletedRows ?? 0n);
    },
  };
}
