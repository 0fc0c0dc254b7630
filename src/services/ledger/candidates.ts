import type { Tx } from '../../db/open.ts';
import { intentFromRow } from '../../db/intent-rows.ts';
import type { Candidate } from '../../domain/attribution.ts';
import { asChoice, type Intent } from '../../domain/intent.ts';
import { amountFromDb, amountToDb } from '../../db/amounts.ts';
import type { ReceivedPayment } from '../../domain/payment.ts';
import type { PaymentPolicy } from '../../domain/payment-policy.ts';

/** Reserved amounts one attribution reads at most: a window wider than this is ambiguous anyway. */
const ATTRIBUTION_READ_LIMIT = 50;

/**
 * The intents a payment could be attributed to (domain/attribution.ts): those whose Solana Pay
 * reference it carries, else the holders of reserved pay amounts from its amount up to the
 * attribution window above it, plus the newest intent of exactly this amount (to say why not).
 */
export async function candidates(tx: Tx, p: ReceivedPayment, policy: PaymentPolicy): Promise<Candidate[]> {
  const refs = (p.references ?? []).filter(Boolean);
  if (refs.length > 0) {
    const byRef = (await tx.selectFrom('intents').selectAll().where('method', '=', p.method).where('receiver', '=', p.receiver).where('reference', 'in', refs).execute()).map(intentFromRow);
    if (byRef.length > 0) return withCredit(tx, byRef, () => true);
  }
  // A whole payment: also the amounts it may be a rounding of (one unit either side), for attribute's guard.
  const near = policy.roundUnitMinor && p.amountMinor % policy.roundUnitMinor === 0n ? policy.roundUnitMinor - 1n : 0n;
  const above = policy.attributionWindowMinor > near ? policy.attributionWindowMinor : near;
  const holders = await tx
    .selectFrom('amount_reservations')
    .select(['intent_id', 'pay_amount_minor'])
    .where('method', '=', p.method)
    .where('receiver', '=', p.receiver)
    .where('pay_amount_minor', '>=', amountToDb(p.amountMinor - near))
    .where('pay_amount_minor', '<=', amountToDb(p.amountMinor + above))
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
    .where('pay_amount_minor', '=', amountToDb(p.amountMinor))
    .orderBy('created_at', 'desc')
    .limit(1)
    .execute();
  const holds = new Set(holders.map((h) => `${h.intent_id}|${amountFromDb(h.pay_amount_minor)}`));
  // An open intent holds one reservation per method its customer chose: a payment on one it
  // left for another is still its own, attributed to it as that choice.
  const asHeld = (i: Intent): Intent => {
    const choice = i.open?.choices.find((c) => c.method === p.method && c.receiver === p.receiver && holds.has(`${i.id}|${c.payAmountMinor}`));
    return choice && (i.method !== choice.method || i.payAmountMinor !== choice.payAmountMinor) ? asChoice(i, choice) : i;
  };
  const intents = [...rows, ...newest.filter((n) => !held.has(n.id))].map(intentFromRow).map(asHeld);
  // A reservation names its holder by id; the amount must be the intent's own (never reassigned, but checked).
  return withCredit(tx, intents, (i) => holds.has(`${i.id}|${i.payAmountMinor}`));
}

/** Each candidate with what is already credited to it (a part-paid Solana intent). */
async function withCredit(tx: Tx, intents: Intent[], holdsAmount: (i: Intent) => boolean): Promise<Candidate[]> {
  const open = intents.filter((i) => (i.paymentCount ?? 0) > 0).map((i) => i.id);
  const sums = new Map<string, bigint>();
  if (open.length) {
    const rows = await tx.selectFrom('payments').select(['intent_id', 'amount_minor']).where('intent_id', 'in', open).where('status', '=', 'matched').execute();
    for (const r of rows) if (r.intent_id) sums.set(r.intent_id, (sums.get(r.intent_id) ?? 0n) + amountFromDb(r.amount_minor));
  }
  return intents.map((intent) => ({ intent, creditedMinor: sums.get(intent.id) ?? 0n, holdsAmount: holdsAmount(intent) }));
}
