/**
 * The notification queue: the one owner of the `notifications` table. Rows are written with a
 * dedup key (one message per channel, target and thing it is about), claimed by the worker
 * leader's sender, and finished, postponed or failed. A crash after a send and before `sent`
 * sends that one message again: delivery is at least once.
 */
import { writeTx, type Db, type Tx } from '../../db/open.ts';
import type { NotificationsTable } from '../../db/schema.ts';
import type { Clock, Random } from '../../domain/ports.ts';
import { recordGrants, type ButtonGrant, type Keyboard } from './buttons.ts';
import { loadCheckpoint, saveCheckpoint } from '../../db/checkpoints.ts';

export type Channel = 'telegram' | 'email';

export interface NewNotification {
  channel: Channel;
  target: string;
  dedupKey: string;
  kind: string;
  text: string;
  buttons?: Keyboard;
  /** The tokens `buttons` carry, recorded only with the row (a deduplicated row issues none). */
  grants?: ButtonGrant[];
}

/** How long a claimed row is ours before another claim may take it, ms (a send times out well before). */
const CLAIM_MS = 60_000;

export function createNotificationQueue(deps: { db: Db; clock: Clock; random: Random }) {
  const { db } = deps;

  async function enqueue(tx: Tx | Db, rows: NewNotification[]): Promise<number> {
    let added = 0;
    const now = deps.clock.now();
    for (const r of rows) {
      const res = await tx
        .insertInto('notifications')
        .values({
          id: `ntf_${deps.random.uuid().replace(/-/g, '')}`,
          channel: r.channel,
          target: r.target,
          dedup_key: r.dedupKey,
          kind: r.kind,
          text: r.text,
          buttons_json: r.buttons ? JSON.stringify(r.buttons) : null,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          locked_until: 0,
          last_error: null,
          created_at: now,
          sent_at: null,
        })
        .onConflict((oc) => oc.columns(['channel', 'target', 'dedup_key']).doNothing())
        .executeTakeFirst();
      const inserted = Number(res.numInsertedOrUpdatedRows ?? 0n);
      if (inserted > 0 && r.grants) await recordGrants(tx, r.grants);
      added += inserted;
    }
    return added;
  }

  const loadState = <T>(key: string): Promise<T | undefined> => loadCheckpoint<T>(db, key);
  const saveState = (tx: Tx | Db, key: string, value: unknown): Promise<void> => saveCheckpoint(tx, key, value, deps.clock.now());

  return {
    enqueue,
    loadState,
    saveState,
    /** Rows and the feed's position together, or neither: a kill between them re-reads nothing twice. */
    commit(rows: NewNotification[], states: Array<{ key: string; value: unknown }>): Promise<number> {
      return writeTx(db, async (tx) => {
        const n = await enqueue(tx, rows);
        for (const s of states) await saveState(tx, s.key, s.value);
        return n;
      });
    },
    /** Up to `limit` due rows, each leased for a minute (compare-and-set, so two claimers never share one). */
    async claim(limit: number): Promise<NotificationsTable[]> {
      const now = deps.clock.now();
      const due = await db.selectFrom('notifications').selectAll().where('status', '=', 'pending').where('next_attempt_at', '<=', now).where('locked_until', '<=', now).orderBy('next_attempt_at').orderBy('created_at').limit(limit).execute();
      const out: NotificationsTable[] = [];
      for (const row of due) {
        const res = await db.updateTable('notifications').set({ locked_until: now + CLAIM_MS }).where('id', '=', row.id).where('status', '=', 'pending').where('locked_until', '<=', now).executeTakeFirst();
        if (Number(res.numUpdatedRows) === 1) out.push(row);
      }
      return out;
    },
    async sent(id: string, attempts: number): Promise<void> {
      await db.updateTable('notifications').set({ status: 'sent', sent_at: deps.clock.now(), attempts, locked_until: 0, last_error: null }).where('id', '=', id).execute();
    },
    async postpone(id: string, o: { at: number; attempts: number; error: string }): Promise<void> {
      await db.updateTable('notifications').set({ next_attempt_at: o.at, attempts: o.attempts, last_error: o.error.slice(0, 500), locked_until: 0 }).where('id', '=', id).execute();
    },
    async failed(id: string, o: { attempts: number; error: string }): Promise<void> {
      await db.updateTable('notifications').set({ status: 'failed', attempts: o.attempts, last_error: o.error.slice(0, 500), locked_until: 0 }).where('id', '=', id).execute();
    },
    /**
     * At the start of a leadership: claims of an earlier leader (gone, or fenced off by the lease)
     * are free again now rather than a minute later. At worst a message it was sending goes twice.
     */
    async releaseClaims(): Promise<void> {
      await db.updateTable('notifications').set({ locked_until: 0 }).where('status', '=', 'pending').where('locked_until', '>', 0).execute();
    },
    /** The earliest time a pending row is due (ms), or undefined. */
    async nextDue(): Promise<number | undefined> {
      const row = await db.selectFrom('notifications').select((eb) => eb.fn.min('next_attempt_at').as('at')).where('status', '=', 'pending').executeTakeFirst();
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    },
    /** Sent and failed rows older than `ms` go (their dedup keys are past any re-feed window). */
    async prune(ms: number): Promise<void> {
      await db.deleteFrom('notifications').where('status', '!=', 'pending').where('created_at', '<', deps.clock.now() - ms).execute();
      await db.deleteFrom('telegram_actions').where('expires_at', '<', deps.clock.now() - ms).execute();
    },
  };
}

export type NotificationQueue = ReturnType<typeof createNotificationQueue>;
