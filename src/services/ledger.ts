import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { TxConflict, writeTx, type Db, type Tx } from '../db/open.ts';
import { intentFromRow } from '../db/intent-rows.ts';
import { PaydError } from '../domain/errors.ts';
import { intentView, type Intent } from '../domain/intent.ts';
import { attribute, type Candidate, type Credit } from '../domain/attribution.ts';
import { decideMatch } from '../domain/matching.ts';
import { DecimalNumber } from '../domain/json.ts';
import type { PaymentPolicy, PaymentReason } from '../domain/payment-policy.ts';
import { moneyOfOne } from './intent-money.ts';
import type { Method } from '../domain/methods.ts';
import { formatMinor, minorToDb } from '../domain/money.ts';
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
  /** Decimal places of a method's minor unit. */
  decimalsOf: (method: string) => number;
  /** How far before an intent's creation a payment may have happened and still match it, ms (clock skew). */
  skewMs?: number;
  metrics?: Metrics;
  /** Each method's policies for payments that are not exactly right (issue 27); default DEFAULT_POLICY. */
  policies?: (method: Method) => PaymentPolicy;
}

export interface IngestOptions {
  /** Manual reconciliation: settle exactly this intent. */
  intentId?: string;
  note?: string;
  /** Who settled by hand, for the audit log (default `cli`; the console: `console:<passkey name>`). */
  actor?: string;
}

/**
 * The one core function of payd: record → de-duplicate → match → settle, in one
 * transaction together with the outbox event and the source's checkpoint.
 */
/** Without configured policies: late exact payments settle, no tolerance, no short-payment window. */
export const DEFAULT_POLICY: PaymentPolicy = { latePayments: 'settle', underpaymentTolerance: null, attributionWindowMinor: 0n };

/** Reserved amounts one attribution reads at most: a window wider than this is ambiguous anyway. */
const ATTRIBUTION_READ_LIMIT = 50;

/** What payment.success says beyond the intent (issue 27). */
export interface SuccessExtras {
  late?: boolean;
  underpaidByMinor?: bigint;
  accepted?: boolean;
  /** The payment was already counted on the intent (an accepted held one). */
  alreadyCounted?: boolean;
}

/** The reason a credited row shows: what the merchant must look at first. */
const creditReason = (c: Credit): PaymentReason | null => (c.overpaidByMinor ? 'overpaid' : c.underpaidByMinor ? 'underpaid' : c.late ? 'late' : null);

/** What the merchant or operator does with a held payment. */
export type HeldAction = (input: { intent: Intent; transactionHash: string; actor: string }) => Promise<{ changed: boolean }>;

export function createLedger(d: LedgerDeps): Ledger & {
  ingestWith(p: ReceivedPayment, c: CheckpointUpdate | undefined, o: IngestOptions): Promise<IngestOutcome>;
  acceptHeld: HeldAction;
  markRefunded: HeldAction;
} {
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

  /**
   * The intents a payment could be attributed to (domain/attribution.ts): those whose Solana Pay
   * reference it carries, else the holders of reserved pay amounts from its amount up to the
   * attribution window above it, plus the newest intent of exactly this amount (to say why not).
   */
  async function candidates(tx: Tx, p: ReceivedPayment): Promise<Candidate[]> {
    const refs = (p.references ?? []).filter(Boolean);
    if (refs.length > 0) {
      const byRef = (await tx.selectFrom('intents').selectAll().where('method', '=', p.method).where('receiver', '=', p.receiver).where('reference', 'in', refs).execute()).map(intentFromRow);
      if (byRef.length > 0) return withCredit(tx, byRef, () => true);
    }
    const policy = d.policies?.(p.method) ?? DEFAULT_POLICY;
    // A whole payment: also the amounts it may be a rounding of (one unit either side), for attribute's guard.
    const near = policy.roundUnitMinor && p.amountMinor % policy.roundUnitMinor === 0n ? policy.roundUnitMinor - 1n : 0n;
    const above = policy.attributionWindowMinor > near ? policy.attributionWindowMinor : near;
    const holders = await tx
      .selectFrom('amount_reservations')
      .select(['intent_id', 'pay_amount_minor'])
      .where('method', '=', p.method)
      .where('receiver', '=', p.receiver)
      .where('pay_amount_minor', '>=', minorToDb(p.amountMinor - near))
      .where('pay_amount_minor', '<=', minorToDb(p.amountMinor + above))
      .where('reserved_until', '>', p.occurredAt)
      .orderBy('pay_amount_minor')
      .limit(ATTRIBUTION_READ_LIMIT)
      .execute();
    const held = new Set(holders.map((h) => h.intent_id));
    const ids = [...held];
    const rows = ids.length ? await tx.selectFrom('intents').selectAll().where('id', 'in', ids).execute() : [];
    const newest = await tx
      .selectFrom('intents')
      .selectAll()
      .where('method', '=', p.method)
      .where('receiver', '=', p.receiver)
      .where('pay_amount_minor', '=', minorToDb(p.amountMinor))
      .orderBy('created_at', 'desc')
      .limit(1)
      .execute();
    const intents = [...rows, ...newest.filter((n) => !held.has(n.id))].map(intentFromRow);
    // A reservation names its holder by id; the amount must be the intent's own (never reassigned, but checked).
    const holds = new Set(holders.map((h) => `${h.intent_id}|${h.pay_amount_minor}`));
    return withCredit(tx, intents, (i) => holds.has(`${i.id}|${minorToDb(i.payAmountMinor)}`));
  }

  async function withCredit(tx: Tx, intents: Intent[], holdsAmount: (i: Intent) => boolean): Promise<Candidate[]> {
    const open = intents.filter((i) => (i.paymentCount ?? 0) > 0).map((i) => i.id);
    const sums = new Map<string, bigint>();
    if (open.length) {
      const rows = await tx.selectFrom('payments').select(['intent_id', 'amount_minor']).where('intent_id', 'in', open).where('status', '=', 'matched').execute();
      for (const r of rows) if (r.intent_id) sums.set(r.intent_id, (sums.get(r.intent_id) ?? 0n) + BigInt(r.amount_minor));
    }
    return intents.map((intent) => ({ intent, creditedMinor: sums.get(intent.id) ?? 0n, holdsAmount: holdsAmount(intent) }));
  }

  /** One more payment shown on the intent; the row must not have changed since it was read. */
  async function countPayment(tx: Tx, intent: Intent, now: number): Promise<void> {
    const upd = await tx
      .updateTable('intents')
      .set((eb) => ({ payment_count: eb('payment_count', '+', 1), updated_at: now }))
      .where('id', '=', intent.id)
      .where('status', '=', intent.status)
      .where('payment_count', '=', intent.paymentCount ?? 0)
      .executeTakeFirst();
    if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`intent ${intent.id}`);
  }

  function heldEvent(intent: Intent, p: Pick<ReceivedPayment, 'txRef' | 'txHash'>, amountMinor: bigint, reason: PaymentReason) {
    return {
      intent_id: intent.id,
      transaction_hash: p.txHash ?? p.txRef,
      amount: new DecimalNumber(formatMinor(amountMinor, d.decimalsOf(intent.method))),
      reason,
    };
  }

  /**
   * A payment of a transaction that can carry several (a TRON Transfer row) is already
   * accounted for when the whole transaction was recorded under its id with this amount:
   * by an operator's manual settlement, or before payd told rows apart.
   */
  async function recordedAsWholeTransaction(tx: Tx, p: ReceivedPayment): Promise<string | undefined> {
    if (p.txHash === undefined || p.txHash === p.txRef) return undefined;
    const row = await tx.selectFrom('payments').select('id').where('method', '=', p.method).where('tx_ref', '=', p.txHash).where('amount_minor', '=', minorToDb(p.amountMinor)).executeTakeFirst();
    return row?.id;
  }

  /** Keeps a rejection in the caller's transaction; false when its ref was already kept. */
  async function insertRejection(tx: Tx, r: RejectedObservation): Promise<boolean> {
    const inserted = await tx
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
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** Counted and told once; seen again (a re-scan, a re-listing): already kept, nothing new. */
  function rejected(r: RejectedObservation, message = 'observation rejected', fields: Record<string, unknown> = {}): void {
    metrics.paymentRejected(r.method, r.reason);
    d.log.warn(message, { source: r.source, ref: r.ref, reason: r.reason, ...fields });
  }

  async function reject(r: RejectedObservation, checkpoint?: CheckpointUpdate): Promise<void> {
    const inserted = await writeTx(d.db, async (tx) => {
      if (checkpoint) await saveCheckpoint(tx, checkpoint);
      return insertRejection(tx, r);
    });
    if (inserted) rejected(r);
  }

  /**
   * A reference already recorded, seen again: the same facts are a duplicate (a re-read, a
   * re-scan); other facts (amount, receiver, account) are never dropped silently, since one of
   * the two may be a genuine payment (a misread alert, an RRN collision between banks).
   */
  async function mismatchOf(tx: Tx, p: ReceivedPayment): Promise<{ existingId: string; rejection?: RejectedObservation }> {
    const existing = await tx.selectFrom('payments').select(['id', 'amount_minor', 'receiver', 'evidence_json']).where('method', '=', p.method).where('tx_ref', '=', p.txRef).executeTakeFirstOrThrow();
    const evidence = parseEvidence(existing.evidence_json);
    // A transaction split over several intents keeps its whole amount in the first row's evidence.
    const split = evidence.split as { transaction_total_minor?: unknown } | undefined;
    const recordedMinor = typeof split?.transaction_total_minor === 'string' ? BigInt(split.transaction_total_minor) : BigInt(existing.amount_minor);
    const recordedAccount = typeof evidence.accountMask === 'string' ? evidence.accountMask : undefined;
    const account = typeof p.evidence?.accountMask === 'string' ? p.evidence.accountMask : undefined;
    const differs: string[] = [];
    if (recordedMinor !== p.amountMinor) differs.push('amount');
    if (existing.receiver !== p.receiver) differs.push('receiver');
    if (recordedAccount !== undefined && account !== undefined && recordedAccount !== account) differs.push('account');
    if (differs.length === 0) return { existingId: existing.id };
    const facts = `${p.amountMinor}|${p.receiver}|${account ?? ''}`;
    return {
      existingId: existing.id,
      rejection: {
        source: p.source,
        method: p.method,
        // One rejection per observation: the mail it came from, else the reference with these facts.
        ref: p.origin?.ref ?? `${p.method}:${p.txRef}:mismatch:${createHash('sha256').update(facts).digest('hex').slice(0, 16)}`,
        reason: 'duplicate_reference_mismatch',
        detail: {
          tx_ref: p.txRef,
          differs,
          amount_minor: p.amountMinor.toString(),
          receiver: p.receiver,
          ...(account !== undefined ? { accountMask: account } : {}),
          recorded: { payment_id: existing.id, amount_minor: recordedMinor.toString(), receiver: existing.receiver, ...(recordedAccount !== undefined ? { accountMask: recordedAccount } : {}) },
          ...(p.evidence ? { evidence: p.evidence } : {}),
        },
        ...(p.origin?.raw ? { raw: p.origin.raw } : {}),
        observedAt: p.observedAt,
      },
    };
  }

  const newPaymentId = () => `pay_${d.random.uuid().replace(/-/g, '')}`;

  function paymentRow(p: ReceivedPayment, id: string, txRef: string, amountMinor: bigint, evidence: Record<string, unknown> | undefined, note: string | undefined) {
    return {
      id,
      method: p.method,
      tx_ref: txRef,
      receiver: p.receiver,
      amount_minor: minorToDb(amountMinor),
      references_json: p.references?.length ? JSON.stringify(p.references) : null,
      source: p.source,
      occurred_at: p.occurredAt,
      observed_at: p.observedAt,
      status: 'unmatched' as const,
      reason: null,
      intent_id: null,
      evidence_json: jsonOrNull(evidence),
      note: note ?? null,
      tx_hash: p.txHash ?? null,
    };
  }

  /** Marks the intent settled by this payment row and queues its webhook, in the caller's transaction. */
  async function settle(tx: Tx, intent: Intent, paymentId: string, p: Pick<ReceivedPayment, 'txRef' | 'txHash'>, now: number, o: IngestOptions, extra: SuccessExtras = {}): Promise<void> {
    // The merchant sees the chain's transaction id, also when it carried several payments.
    const transaction_hash = p.txHash ?? p.txRef;
    const paymentCount = (intent.paymentCount ?? 0) + (extra.alreadyCounted ? 0 : 1);
    const upd = await tx
      .updateTable('intents')
      .set({ status: 'settled', transaction_hash, verified_at: now, payment_id: paymentId, updated_at: now, payment_count: paymentCount })
      .where('id', '=', intent.id)
      .where('status', '=', intent.status)
      .where('payment_count', '=', intent.paymentCount ?? 0)
      .executeTakeFirst();
    // Canceled or settled by another node since we read it: writeTx runs the ingest again.
    if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`intent ${intent.id}`);
    const settled: Intent = { ...intent, status: 'settled', transactionHash: transaction_hash, verifiedAt: now, paymentId, updatedAt: now, paymentCount };
    const view = intentView(settled, { now, livemode: d.livemode, publicUrl: d.publicUrl, decimalsOf: d.decimalsOf }, await moneyOfOne(tx, settled));
    const decimals = d.decimalsOf(intent.method);
    await d.outbox.enqueue(tx, intent.merchantId, intent.id, 'payment.success', {
      ...view,
      ...(extra.late ? { late: true } : {}),
      ...(extra.underpaidByMinor ? { underpaid_by: new DecimalNumber(formatMinor(extra.underpaidByMinor, decimals)) } : {}),
      ...(extra.accepted ? { accepted: true } : {}),
    });
    if (o.intentId) {
      await tx
        .insertInto('audit_log')
        .values({ at: now, actor: o.actor ?? 'cli', action: 'intent.settle', subject: intent.id, details_json: JSON.stringify({ tx_ref: p.txRef, note: o.note ?? null }) })
        .execute();
    }
  }

  /**
   * Manual settlement of a reference that is already recorded: a payment kept unmatched is
   * linked to the named intent (audited); anything else is refused. One transfer, one row,
   * so it can never settle two intents.
   */
  async function linkRecorded(tx: Tx, p: ReceivedPayment, o: IngestOptions & { intentId: string }): Promise<IngestOutcome> {
    const existing = await tx.selectFrom('payments').selectAll().where('method', '=', p.method).where('tx_ref', '=', p.txRef).executeTakeFirstOrThrow();
    // Held for another intent: that intent's merchant decides (or the operator accepts it there).
    if (existing.status === 'held' && existing.intent_id !== o.intentId) {
      throw new PaydError('CONFLICT', `transaction reference ${p.txRef} is held for intent ${existing.intent_id ?? '(unknown)'}: accept it there with payd payments accept ${p.txRef} --intent ${existing.intent_id ?? '<id>'}`);
    }
    const wasHeld = existing.status === 'held';
    if (existing.status !== 'unmatched' && !wasHeld) {
      throw new PaydError('CONFLICT', `transaction reference ${p.txRef} already settled intent ${existing.intent_id ?? '(unknown)'}`);
    }
    const recorded: ReceivedPayment = { ...p, amountMinor: BigInt(existing.amount_minor), receiver: existing.receiver, occurredAt: existing.occurred_at };
    const decision = decideMatch(recorded, (await tx.selectFrom('intents').selectAll().where('id', '=', o.intentId).execute()).map(intentFromRow), { mode: 'manual', skewMs });
    if (decision.kind === 'unmatched') throw new PaydError('CONFLICT', `intent ${o.intentId} cannot be settled: ${decision.reason.replace(/_/g, ' ')}`);
    const intent = decision.allocations[0].intent;
    if (intent.method !== existing.method || intent.receiver !== existing.receiver) {
      throw new PaydError('CONFLICT', `payment ${existing.id} was made to ${existing.method} ${existing.receiver}, not to this intent's ${intent.method} ${intent.receiver}`);
    }
    const now = d.clock.now();
    const upd = await tx.updateTable('payments').set({ status: 'matched', reason: wasHeld ? existing.reason : null, intent_id: intent.id, note: o.note ?? existing.note }).where('id', '=', existing.id).where('status', '=', existing.status).executeTakeFirst();
    if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`payment ${existing.id}`);
    await tx
      .insertInto('audit_log')
      .values({ at: now, actor: o.actor ?? 'cli', action: 'payment.link', subject: existing.id, details_json: JSON.stringify({ intent_id: intent.id, tx_ref: p.txRef, was: existing.reason, note: o.note ?? null }) })
      .execute();
    await settle(tx, intent, existing.id, recorded, now, o, wasHeld ? { accepted: true, alreadyCounted: true } : {});
    return { kind: 'settled', paymentId: existing.id, intentId: intent.id };
  }

  async function ingestWith(p: ReceivedPayment, checkpoint: CheckpointUpdate | undefined, o: IngestOptions): Promise<IngestOutcome> {
    if (p.amountMinor <= 0n || p.amountMinor > BigInt(Number.MAX_SAFE_INTEGER)) {
      // No intent can ask for this; keep it for the operator instead of wedging the source.
      await reject({ source: p.source, method: p.method, ref: `${p.method}:${p.txRef}`, reason: 'amount_out_of_range', detail: { amount_minor: p.amountMinor.toString(), tx_ref: p.txRef }, observedAt: p.observedAt }, checkpoint);
      return { kind: 'rejected', reason: 'amount_out_of_range' };
    }
    let mismatch: RejectedObservation | undefined;
    const outcome = await writeTx(d.db, async (tx) => {
      mismatch = undefined; // a re-run of the transaction starts over
      if (checkpoint) await saveCheckpoint(tx, checkpoint);
      const whole = o.intentId ? undefined : await recordedAsWholeTransaction(tx, p);
      if (whole) return { kind: 'duplicate', paymentId: whole } satisfies IngestOutcome;
      const paymentId = newPaymentId();
      const inserted = await tx
        .insertInto('payments')
        .values(paymentRow(p, paymentId, p.txRef, p.amountMinor, p.evidence, o.note))
        .onConflict((oc) => oc.columns(['method', 'tx_ref']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
        if (o.intentId) return linkRecorded(tx, p, o as IngestOptions & { intentId: string });
        const seen = await mismatchOf(tx, p);
        if (!seen.rejection) return { kind: 'duplicate', paymentId: seen.existingId } satisfies IngestOutcome;
        if (await insertRejection(tx, seen.rejection)) mismatch = seen.rejection;
        return { kind: 'rejected', reason: 'duplicate_reference_mismatch' } satisfies IngestOutcome;
      }

      const now = d.clock.now();
      if (o.intentId) {
        const decision = decideMatch(p, (await tx.selectFrom('intents').selectAll().where('id', '=', o.intentId).execute()).map(intentFromRow), { mode: 'manual', skewMs });
        if (decision.kind === 'unmatched') throw new PaydError('CONFLICT', `intent ${o.intentId} cannot be settled: ${decision.reason.replace(/_/g, ' ')}`);
        const intent = decision.allocations[0].intent;
        await tx.updateTable('payments').set({ status: 'matched', intent_id: intent.id }).where('id', '=', paymentId).execute();
        await settle(tx, intent, paymentId, p, now, o);
        return { kind: 'settled', paymentId, intentId: intent.id } satisfies IngestOutcome;
      }
      const decision = attribute(p, await candidates(tx, p), { policy: d.policies?.(p.method) ?? DEFAULT_POLICY, skewMs });
      if (decision.kind === 'unmatched') {
        await tx.updateTable('payments').set({ reason: decision.reason, intent_id: decision.intentId ?? null }).where('id', '=', paymentId).execute();
        return { kind: 'unmatched', paymentId, reason: decision.reason } satisfies IngestOutcome;
      }
      if (decision.kind === 'hold') {
        await tx.updateTable('payments').set({ status: 'held', reason: decision.reason, intent_id: decision.intent.id }).where('id', '=', paymentId).execute();
        await countPayment(tx, decision.intent, now);
        await d.outbox.enqueue(tx, decision.intent.merchantId, decision.intent.id, 'payment.held', heldEvent(decision.intent, p, p.amountMinor, decision.reason));
        return { kind: 'held', paymentId, intentId: decision.intent.id, reason: decision.reason } satisfies IngestOutcome;
      }

      // One payment row per credited intent (the first is the row just inserted).
      const parts = decision.credits.length;
      const split = (i: number) => (parts > 1 ? { ...p.evidence, split: { part: i + 1, parts, transaction_total_minor: p.amountMinor.toString() } } : p.evidence);
      const settled: { paymentId: string; intentId: string }[] = [];
      const credited: { paymentId: string; intentId: string }[] = [];
      for (const [i, c] of decision.credits.entries()) {
        const id = i === 0 ? paymentId : newPaymentId();
        const reason = creditReason(c);
        if (i === 0) {
          await tx.updateTable('payments').set({ status: 'matched', reason, intent_id: c.intent.id, amount_minor: minorToDb(c.amountMinor), evidence_json: jsonOrNull(split(0)) }).where('id', '=', id).execute();
        } else {
          await tx.insertInto('payments').values({ ...paymentRow(p, id, `${p.txRef}:${i + 1}`, c.amountMinor, split(i), o.note), status: 'matched', reason, intent_id: c.intent.id }).execute();
        }
        if (c.settles) {
          await settle(tx, c.intent, id, p, now, o, { late: c.late, underpaidByMinor: c.underpaidByMinor });
          settled.push({ paymentId: id, intentId: c.intent.id });
        } else {
          // A part of what is due (Solana Pay reference): credited, the intent waits for the rest.
          await countPayment(tx, c.intent, now);
          credited.push({ paymentId: id, intentId: c.intent.id });
        }
      }
      if (settled.length === 0) return { kind: 'credited', paymentId, intentId: credited[0].intentId } satisfies IngestOutcome;
      const [head, ...also] = settled;
      return { kind: 'settled', paymentId: head.paymentId, intentId: head.intentId, ...(also.length ? { also } : {}) } satisfies IngestOutcome;
    });
    if (outcome.kind === 'settled') {
      d.outbox.notify([outcome.intentId, ...(outcome.also ?? []).map((a) => a.intentId)]);
      // One payment may settle several intents (Solana references).
      for (let n = 1 + (outcome.also?.length ?? 0); n > 0; n--) metrics.intentSettled(p.method);
      d.log.info('payment settled', { method: p.method, tx_ref: p.txRef, intent_id: outcome.intentId, also: outcome.also?.map((a) => a.intentId), source: p.source });
    } else if (outcome.kind === 'held') {
      d.outbox.notify([outcome.intentId]);
      metrics.paymentUnmatched(p.method, `held_${outcome.reason}`);
      d.log.warn('payment held for its intent', { method: p.method, tx_ref: p.txRef, intent_id: outcome.intentId, reason: outcome.reason, source: p.source });
    } else if (outcome.kind === 'credited') {
      d.outbox.notify([outcome.intentId]);
      d.log.info('part payment credited', { method: p.method, tx_ref: p.txRef, intent_id: outcome.intentId, source: p.source });
    } else if (mismatch) {
      const m = mismatch as RejectedObservation;
      rejected(m, 'a recorded reference arrived again with other facts: kept as a rejection, check which one is the payment', { tx_ref: p.txRef, differs: m.detail?.differs });
    } else if (outcome.kind === 'unmatched') {
      metrics.paymentUnmatched(p.method, outcome.reason);
      d.log.warn('payment kept unmatched', { method: p.method, tx_ref: p.txRef, reason: outcome.reason, source: p.source });
    }
    return outcome;
  }

  /** The rows of one transaction attributed to an intent (TRON rows share their transaction id). */
  async function rowsOf(tx: Tx, intentId: string, transactionHash: string) {
    return tx
      .selectFrom('payments')
      .selectAll()
      .where('intent_id', '=', intentId)
      .where((eb) => eb.or([eb('tx_ref', '=', transactionHash), eb('tx_hash', '=', transactionHash)]))
      .where('status', 'in', ['matched', 'held', 'refunded'])
      .execute();
  }

  const notAcceptable = (why: string) => new PaydError('PAYMENT_NOT_ACCEPTABLE', why);

  /**
   * The merchant (or operator) accepts a held payment: credited, and the intent settles through
   * the same steps as an automatic settlement (one transaction, one payment.success with
   * `accepted: true`). Against an automatic settlement at the same moment one wins: both change
   * the intent only from the state they read. Idempotent: accepting the payment that settled
   * the intent answers the same.
   */
  async function acceptHeld(input: { intent: Intent; transactionHash: string; actor: string }): Promise<{ changed: boolean }> {
    const result = await writeTx(d.db, async (tx) => {
      const intent = intentFromRow(await tx.selectFrom('intents').selectAll().where('id', '=', input.intent.id).executeTakeFirstOrThrow());
      const rows = await rowsOf(tx, intent.id, input.transactionHash);
      if (rows.length === 0) throw notAcceptable(`no payment ${input.transactionHash} is attributed to intent ${intent.id}`);
      if (intent.status === 'settled' && rows.some((r) => r.id === intent.paymentId || r.status === 'matched')) return { changed: false };
      const held = rows.filter((r) => r.status === 'held');
      if (held.length === 0) throw notAcceptable(`payment ${input.transactionHash} of intent ${intent.id} is ${rows[0].status === 'refunded' ? 'marked refunded' : 'not held'}`);
      if (intent.status === 'settled') throw notAcceptable(`intent ${intent.id} is already settled by payment ${intent.transactionHash ?? '(unknown)'}; refund ${input.transactionHash} instead`);
      if (held.length > 1) throw notAcceptable(`transaction ${input.transactionHash} carried ${held.length} held payments for intent ${intent.id}`);
      const row = held[0];
      const now = d.clock.now();
      const upd = await tx.updateTable('payments').set({ status: 'matched' }).where('id', '=', row.id).where('status', '=', 'held').executeTakeFirst();
      if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`payment ${row.id}`);
      const credited = (await tx.selectFrom('payments').select('amount_minor').where('intent_id', '=', intent.id).where('status', '=', 'matched').execute()).reduce((sum, r) => sum + BigInt(r.amount_minor), 0n);
      const short = intent.payAmountMinor - credited;
      await settle(tx, intent, row.id, { txRef: row.tx_ref, txHash: row.tx_hash ?? undefined }, now, {}, { accepted: true, alreadyCounted: true, late: row.reason === 'late', ...(short > 0n ? { underpaidByMinor: short } : {}) });
      await tx
        .insertInto('audit_log')
        .values({ at: now, actor: input.actor, action: 'payment.accept', subject: row.id, details_json: JSON.stringify({ intent_id: intent.id, tx_ref: row.tx_ref, was: row.reason }) })
        .execute();
      return { changed: true };
    });
    if (result.changed) {
      d.outbox.notify([input.intent.id]);
      metrics.intentSettled(input.intent.method);
      d.log.info('held payment accepted', { intent_id: input.intent.id, tx: input.transactionHash, actor: input.actor });
    }
    return result;
  }

  /** The merchant says it returned a held payment: status refunded, event payment.refunded. payd moves no money. Idempotent. */
  async function markRefunded(input: { intent: Intent; transactionHash: string; actor: string }): Promise<{ changed: boolean }> {
    const result = await writeTx(d.db, async (tx) => {
      const rows = await rowsOf(tx, input.intent.id, input.transactionHash);
      if (rows.length === 0) throw notAcceptable(`no payment ${input.transactionHash} is attributed to intent ${input.intent.id}`);
      const held = rows.filter((r) => r.status === 'held');
      if (held.length === 0) {
        if (rows.every((r) => r.status === 'refunded')) return { changed: false };
        throw notAcceptable(`payment ${input.transactionHash} was credited to intent ${input.intent.id}; only a held payment can be marked refunded`);
      }
      const now = d.clock.now();
      for (const row of held) {
        const upd = await tx.updateTable('payments').set({ status: 'refunded' }).where('id', '=', row.id).where('status', '=', 'held').executeTakeFirst();
        if (Number(upd.numUpdatedRows) !== 1) throw new TxConflict(`payment ${row.id}`);
        const event = heldEvent(input.intent, { txRef: row.tx_ref, txHash: row.tx_hash ?? undefined }, BigInt(row.amount_minor), (row.reason ?? 'underpaid') as PaymentReason);
        await d.outbox.enqueue(tx, input.intent.merchantId, input.intent.id, 'payment.refunded', event);
        await tx
          .insertInto('audit_log')
          .values({ at: now, actor: input.actor, action: 'payment.refunded', subject: row.id, details_json: JSON.stringify({ intent_id: input.intent.id, tx_ref: row.tx_ref }) })
          .execute();
      }
      // The intent's row changes too (updated_at), so the checkout's live status wakes up.
      await tx.updateTable('intents').set({ updated_at: now }).where('id', '=', input.intent.id).execute();
      return { changed: true };
    });
    if (result.changed) d.outbox.notify([input.intent.id]);
    return result;
  }

  return {
    ingest: (p, checkpoint) => ingestWith(p, checkpoint, {}),
    acceptHeld,
    markRefunded,
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

function parseEvidence(json: string | null): Record<string, unknown> {
  if (!json) return {};
  try {
    const v = JSON.parse(json) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const jsonOrNull = (v: Record<string, unknown> | undefined): string | null => (v ? JSON.stringify(v) : null);

export type PaydLedger = ReturnType<typeof createLedger>;
