import type { Db } from '../../db/open.ts';
import type { Method } from '../../domain/methods.ts';
import { amountFromDb, amountToDb } from '../../db/amounts.ts';
import type { PaymentSource, SourceDeps } from '../source.ts';
import { runLoop } from '../../runtime/loop.ts';

const CHECKPOINT = 'sandbox:transfers';

/**
 * The sandbox's simulated upstream: `payd sandbox pay` appends a transfer to
 * sandbox_transfers; this source reads it like a chain or mailbox and feeds the same ledger.
 */
export function createSandboxSource(db: Db, deps: SourceDeps, pollMs = 200) {
  async function tick(): Promise<number> {
    const cp = (await deps.ledger.loadCheckpoint<{ lastSeq: number }>(CHECKPOINT)) ?? { lastSeq: 0 };
    const rows = await db.selectFrom('sandbox_transfers').selectAll().where('seq', '>', cp.lastSeq).orderBy('seq').limit(200).execute();
    for (const t of rows) {
      await deps.ledger.ingest(
        {
          method: t.method as Method,
          receiver: t.receiver,
          amountMinor: amountFromDb(t.amount_minor),
          txRef: t.tx_ref,
          references: t.reference ? [t.reference] : undefined,
          occurredAt: t.created_at,
          observedAt: deps.clock.now(),
          source: 'sandbox',
          evidence: { simulated: true, seq: t.seq },
        },
        { key: CHECKPOINT, value: { lastSeq: t.seq } },
      );
    }
    return rows.length;
  }

  /** A customer's simulated payment lands upstream; the next tick (here or in the daemon) picks it up. */
  async function simulate(t: { method: Method; receiver: string; amountMinor: bigint; txRef: string; reference: string | null }): Promise<void> {
    await db
      .insertInto('sandbox_transfers')
      .values({ method: t.method, receiver: t.receiver, amount_minor: amountToDb(t.amountMinor), tx_ref: t.txRef, reference: t.reference, created_at: deps.clock.now() })
      .execute();
  }

  const source: PaymentSource & { tick: typeof tick; simulate: typeof simulate } = {
    name: 'sandbox',
    tick,
    simulate,
    run: (signal) => runLoop({ name: 'sandbox source', intervalMs: pollMs, tick: async () => void (await tick()), signal, log: deps.log, random: deps.random }),
    check: async () => ({ ok: true, message: 'simulated payments (sandbox)' }),
  };
  return source;
}

export type SandboxSource = ReturnType<typeof createSandboxSource>;
