import { sql } from 'kysely';
import { writeTx } from '../../db/open.ts';
import type { Method } from '../../domain/methods.ts';
import type { IngestOutcome, ReceivedPayment, RejectedObservation } from '../../domain/payment.ts';
import { isStorableMinor } from '../../domain/money.ts';
import { DEFAULT_POLICY } from '../../domain/payment-policy.ts';
import { formatMinor } from '../../domain/money.ts';
import { noopMetrics, type CheckpointUpdate, type Ledger } from '../../domain/ports.ts';
import { applyAttribution } from './attributed.ts';
import type { IngestOptions, LedgerContext, LedgerDeps } from './deps.ts';
import { acceptHeld, markRefunded, type HeldAction } from './held.ts';
import { linkRecorded, settleNamed } from './named-intent.ts';
import { mismatchOf } from './mismatch.ts';
import { insertRejection, newPaymentId, paymentRow, recordedAsWholeTransaction } from './rows.ts';
import { loadCheckpoint, saveCheckpoint } from '../../db/checkpoints.ts';
import { resolveCommand } from '../../domain/notify/text.ts';
import { unmatchedCandidates, type UnmatchedCandidate } from '../unmatched-candidates.ts';

/**
 * The one core function of payd: record → de-duplicate → match → settle, in one
 * transaction together with the outbox event and the source's checkpoint. Its steps live in
 * ledger/: the candidates and the attribution's writes, manual settlement, held payments.
 */
export function createLedger(deps: LedgerDeps): Ledger & {
  ingestWith(p: ReceivedPayment, c: CheckpointUpdate | undefined, o: IngestOptions): Promise<IngestOutcome>;
  acceptHeld: HeldAction;
  markRefunded: HeldAction;
} {
  const d: LedgerContext = { ...deps, skewMs: deps.skewMs ?? 60_000, metrics: deps.metrics ?? noopMetrics, policyOf: (m) => deps.policies?.(m) ?? DEFAULT_POLICY };

  /** Counted and told once; seen again (a re-scan, a re-listing): already kept, nothing new. */
  function rejected(r: RejectedObservation, message = 'observation rejected', fields: Record<string, unknown> = {}): void {
    d.metrics.paymentRejected(r.method, r.reason);
    d.log.warn(message, { source: r.source, method: r.method, ref: r.ref, reason: r.reason, ...fields });
  }

  async function reject(r: RejectedObservation, checkpoint?: CheckpointUpdate): Promise<void> {
    const inserted = await writeTx(d.db, async (tx) => {
      if (checkpoint) await saveCheckpoint(tx, checkpoint.key, checkpoint.value, d.clock.now());
      return insertRejection(tx, r);
    });
    if (inserted) rejected(r);
  }

  // The log line's extra facts are read after the commit: a failed read leaves them out, never fails the payment.
  async function orderIdOf(intentId: string): Promise<string | undefined> {
    try {
      return (await d.db.selectFrom('intents').select('order_id').where('id', '=', intentId).executeTakeFirst())?.order_id;
    } catch {
      return undefined;
    }
  }

  async function candidatesOf(p: ReceivedPayment): Promise<UnmatchedCandidate[]> {
    try {
      return await unmatchedCandidates(d.db, p);
    } catch {
      return [];
    }
  }

  async function ingestWith(p: ReceivedPayment, checkpoint: CheckpointUpdate | undefined, o: IngestOptions): Promise<IngestOutcome> {
    if (p.amountMinor <= 0n || !isStorableMinor(p.amountMinor)) {
      // No intent can ask for this; keep it for the operator instead of wedging the source.
      await reject({ source: p.source, method: p.method, ref: `${p.method}:${p.txRef}`, reason: 'amount_out_of_range', detail: { amount_minor: p.amountMinor.toString(), tx_ref: p.txRef }, observedAt: p.observedAt }, checkpoint);
      return { kind: 'rejected', reason: 'amount_out_of_range' };
    }
    let mismatch: RejectedObservation | undefined;
    const outcome = await writeTx(d.db, async (tx): Promise<IngestOutcome> => {
      mismatch = undefined; // a re-run of the transaction starts over
      if (checkpoint) await saveCheckpoint(tx, checkpoint.key, checkpoint.value, d.clock.now());
      const whole = o.intentId ? undefined : await recordedAsWholeTransaction(tx, p);
      if (whole) return { kind: 'duplicate', paymentId: whole };
      const paymentId = newPaymentId(d.random);
      const inserted = await tx
        .insertInto('payments')
        .values(paymentRow(p, paymentId, p.txRef, p.amountMinor, p.evidence, o.note))
        .onConflict((oc) => oc.columns(['method', 'tx_ref']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
        if (o.intentId) return linkRecorded(d, tx, p, o as IngestOptions & { intentId: string });
        const seen = await mismatchOf(tx, p);
        if (!seen.rejection) return { kind: 'duplicate', paymentId: seen.existingId };
        if (await insertRejection(tx, seen.rejection)) mismatch = seen.rejection;
        return { kind: 'rejected', reason: 'duplicate_reference_mismatch' };
      }
      if (o.intentId) return settleNamed(d, tx, p, paymentId, o as IngestOptions & { intentId: string });
      return applyAttribution(d, tx, p, paymentId, o);
    });
    // One line per outcome that moves or keeps money, with what an operator reads in journalctl:
    // the reference, the method, the amount and the intent with its order id.
    const amount = formatMinor(p.amountMinor, d.decimalsOf(p.method));
    if (outcome.kind === 'settled') {
      d.outbox.notify([outcome.intentId, ...(outcome.also ?? []).map((a) => a.intentId)]);
      // One payment may settle several intents (Solana references).
      for (let n = 1 + (outcome.also?.length ?? 0); n > 0; n--) d.metrics.intentSettled(p.method);
      d.log.info('payment settled', { method: p.method, tx_ref: p.txRef, amount, intent_id: outcome.intentId, order_id: await orderIdOf(outcome.intentId), also: outcome.also?.map((a) => a.intentId), source: p.source });
    } else if (outcome.kind === 'held') {
      d.outbox.notify([outcome.intentId]);
      d.metrics.paymentUnmatched(p.method, `held_${outcome.reason}`);
      d.log.warn('payment held for its intent', { method: p.method, tx_ref: p.txRef, amount, intent_id: outcome.intentId, order_id: await orderIdOf(outcome.intentId), reason: outcome.reason, source: p.source });
    } else if (outcome.kind === 'credited') {
      d.outbox.notify([outcome.intentId]);
      d.log.info('part payment credited', { method: p.method, tx_ref: p.txRef, amount, intent_id: outcome.intentId, order_id: await orderIdOf(outcome.intentId), source: p.source });
    } else if (mismatch) {
      const m = mismatch as RejectedObservation;
      rejected(m, 'a recorded reference arrived again with other facts: kept as a rejection, check which one is the payment', { tx_ref: p.txRef, method: p.method, amount, differs: m.detail?.differs });
    } else if (outcome.kind === 'unmatched') {
      d.metrics.paymentUnmatched(p.method, outcome.reason);
      const near = await candidatesOf(p);
      d.log.warn('payment kept unmatched', {
        method: p.method,
        tx_ref: p.txRef,
        amount,
        reason: outcome.reason,
        source: p.source,
        candidates: near.map((c) => ({ intent_id: c.intentId, order_id: c.orderId, status: c.status, asked: formatMinor(c.payAmountMinor, d.decimalsOf(p.method)) })),
        resolve: resolveCommand(p.txRef, near.length === 1 ? near[0]!.intentId : undefined),
      });
    }
    return outcome;
  }

  return {
    ingest: (p, checkpoint) => ingestWith(p, checkpoint, {}),
    ingestWith,
    acceptHeld: acceptHeld(d),
    markRefunded: markRefunded(d),
    reject,

    loadCheckpoint: <T>(key: string) => loadCheckpoint<T>(d.db, key),
    saveCheckpoint: (c) => saveCheckpoint(d.db, c.key, c.value, d.clock.now()),

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
