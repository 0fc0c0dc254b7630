import type { Db, Tx } from '../../db/open.ts';
import { amountFromDb } from '../../db/amounts.ts';
import type { PaymentsTable } from '../../db/schema.ts';
import { settlementEventBody } from '../../db/events.ts';
import { exactAmount, intentView, NO_MONEY, type Intent, type IntentMoney, type IntentView, type ShownPayment, type ViewContext } from '../../domain/intent.ts';

/** Payment row statuses the merchant sees on its intent, and as what. */
const SHOWN: Partial<Record<PaymentsTable['status'], ShownPayment['status']>> = { matched: 'credited', held: 'held', refunded: 'refunded' };
const REASONS = new Set(['late', 'quote_expired', 'underpaid', 'overpaid', 'canceled', 'after_settlement']);

/** The transaction the merchant sees for a row: its tx_hash, else its reference. */
export const shownHash = (row: Pick<PaymentsTable, 'tx_ref' | 'tx_hash'>): string => row.tx_hash ?? row.tx_ref;

/** A payment row as shown on its intent, or undefined for one the merchant does not see (unmatched). */
export function shownPayment(row: Pick<PaymentsTable, 'status' | 'reason' | 'tx_ref' | 'tx_hash' | 'amount_minor' | 'occurred_at'> & { method?: string }): ShownPayment | undefined {
  const status = SHOWN[row.status];
  if (!status) return undefined;
  return {
    transactionHash: shownHash(row),
    amountMinor: amountFromDb(row.amount_minor),
    receivedAt: row.occurred_at,
    status,
    reason: row.reason !== null && REASONS.has(row.reason) ? (row.reason as ShownPayment['reason']) : null,
    method: row.method,
  };
}

/**
 * The payments of these intents, read only for intents that have some (payment_count > 0), so
 * a fetch of an intent without payments costs no extra read. Inside a transaction, pass its handle.
 */
export async function moneyOf(db: Db | Tx, intents: readonly Intent[]): Promise<Map<string, IntentMoney>> {
  const out = new Map<string, IntentMoney>();
  const ids = intents.filter((i) => (i.paymentCount ?? 0) > 0 || i.paymentId !== null).map((i) => i.id);
  if (ids.length === 0) return out;
  const methodOf = new Map(intents.map((i) => [i.id, i.method]));
  const rows = await db
    .selectFrom('payments')
    .select(['intent_id', 'status', 'reason', 'tx_ref', 'tx_hash', 'amount_minor', 'occurred_at', 'observed_at', 'id', 'method'])
    .where('intent_id', 'in', ids)
    .where('status', 'in', ['matched', 'held', 'refunded'])
    .orderBy('observed_at')
    .orderBy('id')
    .execute();
  for (const row of rows) {
    const shown = shownPayment(row);
    if (!shown || row.intent_id === null) continue;
    let m = out.get(row.intent_id);
    if (!m) out.set(row.intent_id, (m = { receivedMinor: 0n, payments: [] }));
    m.payments.push(shown);
    // Summed in the intent's own method: a part credited on another of an open intent's choices is listed, not added.
    if (shown.status === 'credited' && methodOf.get(row.intent_id) === shown.method) m.receivedMinor += shown.amountMinor;
  }
  return out;
}

/** One intent's money (NO_MONEY when it has none). */
export async function moneyOfOne(db: Db | Tx, intent: Intent): Promise<IntentMoney> {
  return (await moneyOf(db, [intent])).get(intent.id) ?? NO_MONEY;
}

/**
 * What the settlement of a settled intent said beside the intent (payment.success's `accepted`,
 * `settled_by`, `underpaid_by`, `overpaid_by`, `late`), so a fetch tells what the webhook told.
 * Read from the event as written: its amounts keep their exact decimal text.
 */
export async function settlementFacts(db: Db, intent: Intent): Promise<Record<string, unknown>> {
  if (intent.status !== 'settled') return {};
  const body = await settlementEventBody(db, intent.id);
  if (!body) return {};
  const amount = (field: string) => {
    const text = new RegExp(`"${field}_exact":"([0-9.]+)"`).exec(body)?.[1] ?? new RegExp(`"${field}":([0-9]+(?:\\.[0-9]+)?)[,}]`).exec(body)?.[1];
    return text === undefined ? {} : exactAmount(field, text);
  };
  const settledBy = /"settled_by":"(merchant|operator)"/.exec(body)?.[1];
  return {
    ...(/"late":true/.test(body) ? { late: true } : {}),
    ...amount('underpaid_by'),
    ...amount('overpaid_by'),
    ...(/"accepted":true/.test(body) ? { accepted: true } : {}),
    ...(settledBy ? { settled_by: settledBy } : {}),
  };
}

/** One intent as a fetch shows it: the view, its money, and (settled) what its settlement said. */
export async function fetchedView(db: Db, intent: Intent, ctx: ViewContext): Promise<IntentView> {
  const [money, facts] = await Promise.all([moneyOfOne(db, intent), settlementFacts(db, intent)]);
  return { ...intentView(intent, ctx, money), ...facts } as IntentView;
}
