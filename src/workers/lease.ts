import { isPostgres, type Db } from '../db/open.ts';
import { databaseNow } from '../db/clock.ts';
import type { LeaseFence } from '../db/fence.ts';
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
  | { held: true; acquired: boolean; fence: LeaseFence; previous?: WorkerLeaseTable & { dead: boolean } }
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
export function createWorkerLease(deps: WorkerLeaseDeps) {
  const isAlive = deps.isAlive ?? pidAlive;
  /** A holder on this host whose process is gone. (Another host's holder can only expire.) */
  const isDead = (row: WorkerLeaseTable) => row.host === deps.me.host && row.pid !== deps.me.pid && !isAlive(row.pid);

  const current = (): Promise<WorkerLeaseTable | undefined> => deps.db.selectFrom('worker_lease').selectAll().where('name', '=', NAME).executeTakeFirst();

  return {
    /**
     * Whether the store checks a worker's writes against its lease take (db/fence.ts): PostgreSQL,
     * where nodes on other machines share the database. SQLite writes are never fenced.
     */
    fencesWrites: isPostgres(deps.db),
    /** One attempt to take or renew the lease. */
    async tryHold(): Promise<HoldResult> {
      // PostgreSQL: the database's clock, one for every node, so a node whose clock runs
      // ahead cannot see a live leader's lease as expired. SQLite (one machine): the injected clock.
      const now = (await databaseNow(deps.db)) ?? deps.clock.now();
      const mine = { holder: deps.me.holder, host: deps.me.host, pid: deps.me.pid, acquired_at: now, expires_at: now + deps.ttlMs };
      const inserted = await deps.db
        .insertInto('worker_lease')
        .values({ name: NAME, ...mine })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { held: true, acquired: true, fence: fenceOf(mine) };

      const row = await deps.db.selectFrom('worker_lease').selectAll().where('name', '=', NAME).executeTakeFirst();
      if (!row) return { held: false }; // released meanwhile: the next try inserts
      if (row.holder === deps.me.holder) {
        const renewed = await deps.db.updateTable('worker_lease').set({ expires_at: now + deps.ttlMs }).where('name', '=', NAME).where('holder', '=', deps.me.holder).executeTakeFirst();
        return Number(renewed.numUpdatedRows) === 1 ? { held: true, acquired: false, fence: fenceOf(row) } : { held: false };
      }
      const dead = isDead(row);
      if (!dead && row.expires_at > now) return { held: false, holder: row };
      // Only if nobody else took it since we read it.
      const taken = await deps.db
        .updateTable('worker_lease')
        .set(mine)
        .where('name', '=', NAME)
        .where('holder', '=', row.holder)
        .where('expires_at', '=', row.expires_at)
        .executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1 ? { held: true, acquired: true, fence: fenceOf(mine), previous: { ...row, dead } } : { held: false };
    },

    /** Gives the lease up (clean shutdown), so a standby takes over at once. */
    async release(): Promise<void> {
      await deps.db.deleteFrom('worker_lease').where('name', '=', NAME).where('holder', '=', deps.me.holder).execute();
    },

    /** Whether the database still has `fence` as the live lease (unexpired by its clock): what /readyz reports. */
    async holds(fence: LeaseFence): Promise<boolean> {
      const now = (await databaseNow(deps.db)) ?? deps.clock.now();
      const row = await current();
      return row !== undefined && row.holder === fence.holder && row.acquired_at === fence.generation && row.expires_at > now;
    },

    current,
  };
}

/** One take of the lease: its generation is the take's time (fence.ts). */
const fenceOf = (row: { holder: string; acquired_at: number }): LeaseFence => ({ holder: row.holder, generation: Number(row.acquired_at) });

export type WorkerLease = ReturnType<typeof createWorkerLease>;
