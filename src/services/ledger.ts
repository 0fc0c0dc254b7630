import { sql } from 'kysely';
import { writeTx, type Db, type Tx } from '../db/open.ts';
import type { IntentsTable } from '../db/schema.ts';
import { PaydError } from '../domain/errors.ts';
import { intentView } from '../domain/intent.ts';
import { decideMatch } from '../domain/matching.ts';
import type { Method } from '../domain/methods.ts';
import { minorToDb } from '../domain/money.ts';
import type { IngestOutcome, ReceivedPayment, RejectedObservation } from '../domain/payment.ts';
import { noopMetrics, type CheckpointUpdate, type Clock, type Ledger, type Logger, type Metrics, type Random } from '../domain/ports.ts';
import type { Outbox } from './outbox.ts';

export interface LedgerDeps {
  db: Db;
  clock: Clock;
  random: Random;
  log: Logger;
  outbox: Outbox;
  livemode: boolean;
  publicUrl: string;
  /** How far before an intent's creation a payment may have happened and still match it, ms (clock skew). */
  skewMs?: number;
  metrics?: Metrics;
}

export interface IngestOptions {
  /** Manual reconciliation: settle exactly this intent. */
  intentId?: string;
  note?: string;
}

/**
 * The one core function of payd: record → de-duplicate → match → settle, in one
 * transaction together with the outbox event and the source's checkpoint.
 */
export function createLedger(d: LedgerDeps): Ledger & { ingestWith(p: ReceivedPayment, c: CheckpointUpdate | undefined, o: IngestOptions): Promise<IngestOutcome> } {
  const skewMs = d.skewMs ?? 60_000;
  const metrics = d.metrics ?? noopMetrics;

  async function saveCheckpoint(tx: Tx | Db, c: CheckpointUpdate): Promise<void> {
    const value_json = JSON.stringify(c.value);
    const updated_at = d.clock.now();
    await tx
      .insertInto('checkpoints')
      .values({ key: c.key, value_json, updated_at })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value_json, updated_at }))
      .execute();
  }

  async function candidates(tx: Tx, p: ReceivedPayment, o: IngestOptions): Promise<IntentsTable[]> {
    if (o.intentId) return tx.selectFrom('intents').selectAll().where('id', '=', o.intentId).execute();
    const refs = (p.references ?? []).filter(Boolean);
    if (refs.length > 0) {
      const byRef = await tx.selectFrom('intents').selectAll().where('method', '=', p.method).where('receiver', '=', p.receiver).where('reference', 'in', refs).execute();
      if (byRef.length > 0) return byRef;
    }
    return tx
      .selectFrom('intents')
      .selectAll()
      .where('method', '=', p.method)
      .where('receiver', '=', p.receiver)
      .where('pay_amount_minor', '=', minorToDb(p.amountMinor))
      .where('status', 'in', ['pending', 'expired', 'settled'])
      .orderBy('created_at', 'desc')
      .limit(20)
      .execute();
  }

  async function reject(r: RejectedObservation, checkpoint?: CheckpointUpdate): Promise<void> {
    await writeTx(d.db, async (tx) => {
      if (checkpoint) await saveCheckpoint(tx, checkpoint);
      await tx
        .insertInto('rejections')
        .values({
          ref: r.ref,
          source: r.source,
          method: r.method,
          reason: r.reason,
          detail_json: r.detail ? JSON.stringify(r.detail) : null,
          raw: r.raw ?? null,
          observed_at: r.observedAt,
        })
        .onConflict((oc) => oc.column('ref').doNothing())
        .execute();
    });
    metrics.paymentRejected(r.method, r.reason);
    d.log.warn('observation rejected', { source: r.source, ref: r.ref, reason: r.reason });
  }

  async function ingestWith(p: ReceivedPayment, checkpoint: CheckpointUpdate | undefined, o: IngestOptions): Promise<IngestOutcome> {
    if (p.amountMinor <= 0n || p.amountMinor > BigInt(Number.MAX_SAFE_INTEGER)) {
      // No intent can ask for this; keep it for the operator instead of wedging the source.
      await reject({ source: p.source, method: p.method, ref: `${p.method}:${p.txRef}`, reason: 'amount_out_of_range', detail: { amount_minor: p.amountMinor.toString(), tx_ref: p.txRef }, observedAt: p.observedAt }, checkpoint);
      return { kind: 'rejected', reason: 'amount_out_of_range' };
    }
    const outcome = await writeTx(d.db, async (tx) => {
      if (checkpoint) await saveCheckpoint(tx, checkpoint);
      const paymentId = `pay_${d.random.uuid().replace(/-/g, '')}`;
      const inserted = await tx
        .insertInto('payments')
        .values({
          id: paymentId,
          method: p.method,
          tx_ref: p.txRef,
          receiver: p.receiver,
          amount_minor: minorToDb(p.amountMinor),
          references_json: p.references?.length ? JSON.stringify(p.references) : null,
          source: p.source,
          occurred_at: p.occurredAt,
          observed_at: p.observedAt,
          status: 'unmatched',
          reason: null,
          intent_id: null,
          evidence_json: p.evidence ? JSON.stringify(p.evidence) : null,
          note: o.note ?? null,
        })
        .onConflict((oc) => oc.columns(['method', 'tx_ref']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
        if (o.intentId) throw new PaydError('CONFLICT', `transaction reference ${p.txRef} is already recorded for ${p.method}`);
        const existing = await tx.selectFrom('payments').select('id').where('method', '=', p.method).where('tx_ref', '=', p.txRef).executeTakeFirstOrThrow();
        return { kind: 'duplicate', paymentId: existing.id } satisfies IngestOutcome;
      }

      const now = d.clock.now();
      const decision = decideMatch(p, await candidates(tx, p, o), { skewMs, manual: Boolean(o.intentId) });
      if (decision.kind === 'unmatched') {
        if (o.intentId) throw new PaydError('CONFLICT', `intent ${o.intentId} cannot be settled: ${decision.reason.replace(/_/g, ' ')}`);
        await tx.updateTable('payments').set({ reason: decision.reason, intent_id: decision.intentId ?? null }).where('id', '=', paymentId).execute();
        return { kind: 'unmatched', paymentId, reason: decision.reason } satisfies IngestOutcome;
      }

      const intent = decision.intent;
      const upd = await tx
        .updateTable('intents')
        .set({ status: 'settled', transaction_hash: p.txRef, verified_at: now, payment_id: paymentId, updated_at: now })
        .where('id', '=', intent.id)
        .where('status', '=', intent.status)
        .executeTakeFirst();
      if (Number(upd.numUpdatedRows) !== 1) throw new Error(`intent ${intent.id} changed during settlement`);
      await tx.updateTable('payments').set({ status: 'matched', intent_id: intent.id }).where('id', '=', paymentId).execute();
      const settled: IntentsTable = { ...intent, status: 'settled', transaction_hash: p.txRef, verified_at: now, payment_id: paymentId, updated_at: now };
      await d.outbox.enqueue(tx, intent.merchant_id, intent.id, 'payment.success', intentView(settled, { now, livemode: d.livemode, publicUrl: d.publicUrl }));
      if (o.intentId) {
        await tx
          .insertInto('audit_log')
          .values({ at: now, actor: 'cli', action: 'intent.settle', subject: intent.id, details_json: JSON.stringify({ tx_ref: p.txRef, note: o.note ?? null }) })
          .execute();
      }
      return { kind: 'settled', paymentId, intentId: intent.id } satisfies IngestOutcome;
    });
    if (outcome.kind === 'settled') {
      d.outbox.notify();
      metrics.intentSettled(p.method);
      d.log.info('payment settled', { method: p.method, tx_ref: p.txRef, intent_id: outcome.intentId, source: p.source });
    } else if (outcome.kind === 'unmatched') {
      metrics.paymentUnmatched(p.method, outcome.reason);
      d.log.warn('payment kept unmatched', { method: p.method, tx_ref: p.txRef, reason: outcome.reason, source: p.source });
    }
    return outcome;
  }

  return {
    ingest: (p, checkpoint) => ingestWith(p, checkpoint, {}),
    ingestWith,

    reject,

    async loadCheckpoint<T>(key: string): Promise<T | undefined> {
      const row = await d.db.selectFrom('checkpoints').select('value_json').where('key', '=', key).executeTakeFirst();
      return row ? (JSON.parse(row.value_json) as T) : undefined;
    },

    saveCheckpoint: (c) => saveCheckpoint(d.db, c),

    async hasOpenIntents(method: Method, receiver: string): Promise<boolean> {
      const row = await d.db
        .selectFrom('amount_reservations')
        .select(sql<number>`1`.as('one'))
        .where('method', '=', method)
        .where('receiver', '=', receiver)
        .where('reserved_until', '>', d.clock.now())
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

export type PaydLedger = ReturnType<typeof createLedger>;
