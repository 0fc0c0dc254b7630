import type { Db } from '../db/open.ts';
import { databaseNow } from '../db/clock.ts';
import type { WorkerLeaseTable } from '../db/schema.ts';
import type { Clock } from '../domain/ports.ts';

const NAME = 'workers';

export interface LeaseIdentity {
  /** Random per process start, so a restarted process on the same pid is still a new holder. */
  holder: string;
  host: string;
  pid: number;
}

export type HoldResult =
  | { held: true; acquired: boolean; previous?: WorkerLeaseTable & { dead: boolean } }
  | { held: false; holder?: WorkerLeaseTable };

export interface WorkerLeaseDeps {
  db: Db;
  clock: Clock;
  me: LeaseIdentity;
  ttlMs: number;
  /** Whether a pid on this host is alive (default: signal 0). */
  isAlive?: (pid: number) => boolean;
}

/** Signal 0 checks existence only; EPERM means it exists but belongs to someone else. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The database's worker lease: one row, taken and renewed with compare-and-set updates
 * (plain queries, valid on SQLite and PostgreSQL alike). The dispatcher claims webhook
 * deliveries only while its holder's lease is unexpired (db/events.ts: fencing).
 */
export function createWorkerLease(d: WorkerLeaseDeps) {
  const isAlive = d.isAlive ?? pidAlive;
  /** A holder on this host whose process is gone. (Another host's holder can only expire.) */
  const isDead = (row: WorkerLeaseTable) => row.host === d.me.host && row.pid !== d.me.pid && !isAlive(row.pid);

  return {
    /** One attempt to take or renew the lease. */
    async tryHold(): Promise<HoldResult> {
      // PostgreSQL: the database's clock, one for every node, so a node whose clock runs
      // ahead cannot see a live leader's lease as expired. SQLite (one machine): the injected clock.
      const now = (await databaseNow(d.db)) ?? d.clock.now();
      const mine = { holder: d.me.holder, host: d.me.host, pid: d.me.pid, acquired_at: now, expires_at: now + d.ttlMs };
      const inserted = await d.db
        .insertInto('worker_lease')
        .values({ name: NAME, ...mine })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { held: true, acquired: true };

      const row = await d.db.selectFrom('worker_lease').selectAll().where('name', '=', NAME).executeTakeFirst();
      if (!row) return { held: false }; // released meanwhile: the next try inserts
      if (row.holder === d.me.holder) {
        const renewed = await d.db.updateTable('worker_lease').set({ expires_at: now + d.ttlMs }).where('name', '=', NAME).where('holder', '=', d.me.holder).executeTakeFirst();
        return Number(renewed.numUpdatedRows) === 1 ? { held: true, acquired: false } : { held: false };
      }
      const dead = isDead(row);
      if (!dead && row.expires_at > now) return { held: false, holder: row };
      // Only if nobody else took it since we read it.
      const taken = await d.db
        .updateTable('worker_lease')
        .set(mine)
        .where('name', '=', NAME)
        .where('holder', '=', row.holder)
        .where('expires_at', '=', row.expires_at)
        .executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1 ? { held: true, acquired: true, previous: { ...row, dead } } : { held: false };
    },

    /** Gives the lease up (clean shutdown), so a standby takes over at once. */
    async release(): Promise<void> {
      await d.db.deleteFrom('worker_lease').where('name', '=', NAME).where('holder', '=', d.me.holder).execute();
    },

    async current(): Promise<WorkerLeaseTable | undefined> {
      return d.db.selectFrom('worker_lease').selectAll().where('name', '=', NAME).executeTakeFirst();
    },
  };
}

export type WorkerLease = ReturnType<typeof createWorkerLease>;
