import type { Db } from '../db/open.ts';
import { PaydError } from '../domain/errors.ts';
import { normalizeTxRef, txHashOf, type Method } from '../domain/methods.ts';
import type { MethodRegistry } from '../methods/registry.ts';
import type { Clock } from '../domain/ports.ts';
import type { IntentService } from './intents/index.ts';
import type { Actor } from './merchants/index.ts';
import type { PaydLedger } from './ledger/index.ts';
import { creditedTo, paymentDifference } from './ledger/named-intent.ts';
import { chosenIntent, type ChosenIntent } from '../domain/intent.ts';

export interface SettlementPreview {
  intent: ChosenIntent;
  txRef: string;
  /** The reference names a payment payd already recorded (its amount is known). */
  recorded: boolean;
  amountMinor: bigint;
  /** What the intent is still due (pay_amount less what is credited). */
  dueMinor: bigint;
  /** amountMinor − dueMinor: negative when short; settling needs it confirmed unless 0. */
  differenceMinor: bigint;
}

export interface ManualSettlement {
  intent_id: string;
  /** The reference as recorded (normalised for the method). */
  tx_ref: string;
  payment_id: string;
  /** True when a payment already recorded as unmatched was linked instead of a new one recorded. */
  linked: boolean;
}

/**
 * `payd intents settle <id> --tx <ref>`: an operator settles an intent by hand through the
 * ledger (same transaction, outbox event and audit as a source's settlement). The reference is
 * normalised by the method first, so a transfer the source already recorded is found under
 * any spelling: kept unmatched, it is linked to the intent; settled, it is refused.
 */
export function createManualSettlementService(deps: { db: Db; ledger: PaydLedger; intents: Pick<IntentService, 'find'>; methods: MethodRegistry; clock: Clock }) {
  /** The recorded row a reference names: the exact one, or the one row of a TRON transaction stored per Transfer row. */
  async function recorded(method: Method, ref: string): Promise<{ tx_ref: string; amount_minor: string | number | bigint } | undefined> {
    const exact = await deps.db.selectFrom('payments').select(['tx_ref', 'amount_minor']).where('method', '=', method).where('tx_ref', '=', ref).executeTakeFirst();
    if (exact || !deps.methods.of(method).txRef.rowKeyed || ref.includes(':')) return exact;
    const rows = await deps.db.selectFrom('payments').select(['tx_ref', 'amount_minor', 'status', 'intent_id']).where('method', '=', method).where('tx_ref', 'like', `${ref}:%`).execute();
    const settled = rows.find((r) => r.status === 'matched');
    if (settled) throw new PaydError('CONFLICT', `transaction ${ref} already settled intent ${settled.intent_id ?? '(unknown)'}`);
    if (rows.length > 1) {
      throw new PaydError('CONFLICT', `transaction ${ref} carried ${rows.length} unmatched transfers; name one with --tx ${rows.map((r) => r.tx_ref).join(' or --tx ')}`);
    }
    return rows[0];
  }

  /** The intent and the reference as the method spells it, and the recorded payment it names, if any. */
  async function named(input: { intentId: string; txRef: string }) {
    const found = await deps.intents.find(input.intentId);
    if (!found) throw new PaydError('NOT_FOUND', `no payment intent ${input.intentId}`);
    const row = chosenIntent(found);
    const rules = deps.methods.of(row.method).txRef;
    const ref = normalizeTxRef(rules, input.txRef);
    if (!ref) throw new PaydError('INVALID_REQUEST', `--tx must be a ${rules.noun} of at most 200 characters`);
    const known = await recorded(row.method, ref);
    return { row, ref, known };
  }

  return {
    /**
     * What a manual settlement would settle with, before the operator confirms it: the payment's
     * own amount (a recorded one's; an unrecorded reference is taken as paying what is due) and
     * its difference from what the intent is still due (negative: short). Only for wording the
     * question: `settle` checks the difference again in its transaction.
     */
    async preview(input: { intentId: string; txRef: string }): Promise<SettlementPreview> {
      const { row, ref, known } = await named(input);
      const dueMinor = row.payAmountMinor - (await creditedTo(deps.db, row.id));
      const amountMinor = known ? BigInt(known.amount_minor) : dueMinor;
      return { intent: row, txRef: known?.tx_ref ?? ref, recorded: known !== undefined, amountMinor, dueMinor, differenceMinor: paymentDifference(amountMinor, dueMinor).minor };
    },

    async settle(input: { intentId: string; txRef: string; note?: string; actor?: Actor; acceptDifference?: boolean }): Promise<ManualSettlement> {
      const { row, ref, known } = await named(input);
      const method = row.method;
      const rules = deps.methods.of(method).txRef;
      const txRef = known?.tx_ref ?? ref;
      const now = deps.clock.now();
      const outcome = await deps.ledger.ingestWith(
        {
          method,
          receiver: row.receiver,
          amountMinor: row.payAmountMinor,
          txRef,
          // The merchant sees the transaction id, also for a TRON row key.
          txHash: txHashOf(rules, txRef),
          occurredAt: now,
          observedAt: now,
          source: 'manual',
          evidence: { note: input.note ?? null },
        },
        undefined,
        { intentId: row.id, note: input.note, actor: input.actor, acceptDifference: input.acceptDifference },
      );
      if (outcome.kind !== 'settled') throw new PaydError('CONFLICT', `not settled: ${outcome.kind}`);
      return { intent_id: row.id, tx_ref: txRef, payment_id: outcome.paymentId, linked: known !== undefined };
    },
  };
}

export type ManualSettlementService = ReturnType<typeof createManualSettlementService>;
