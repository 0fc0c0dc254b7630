import type { Db } from '../db/open.ts';
import { amountFromDb, amountToDb } from '../db/amounts.ts';
import type { IntentsTable } from '../db/schema.ts';

import type { UnmatchedCandidate } from '../domain/notify/text.ts';

export type { UnmatchedCandidate };

/** The payment as recorded: its method, the account it reached, its amount and when it was seen. */
export interface UnmatchedPaymentFacts {
  method: string;
  receiver: string;
  amountMinor: bigint;
  observedAt: number;
}

/** A customer who mistyped pays close to the amount asked: within a tenth of it either way. */
const NEAR_DIVISOR = 10n;
/** Orders older than this are not what a payment seen now was meant for. */
const LOOK_BACK_MS = 7 * 24 * 3600_000;
const MAX_CANDIDATES = 3;

/** An intent's row as a candidate. */
export const candidateOf = (r: Pick<IntentsTable, 'id' | 'order_id' | 'status' | 'pay_amount_minor' | 'created_at' | 'expires_at'>): UnmatchedCandidate => ({
  intentId: r.id,
  orderId: r.order_id,
  status: r.status,
  payAmountMinor: amountFromDb(r.pay_amount_minor),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
});

/**
 * Intents still open or expired, of the payment's method and receiver, that asked an amount near
 * what arrived, the closest first: the orders an operator checks before settling one by hand.
 */
export async function unmatchedCandidates(db: Db, p: UnmatchedPaymentFacts, limit = MAX_CANDIDATES): Promise<UnmatchedCandidate[]> {
  const spread = p.amountMinor / NEAR_DIVISOR;
  const low = p.amountMinor > spread ? p.amountMinor - spread : 0n;
  const rows = await db
    .selectFrom('intents')
    .select(['id', 'order_id', 'status', 'pay_amount_minor', 'created_at', 'expires_at'])
    .where('method', '=', p.method)
    .where('receiver', '=', p.receiver)
    .where('status', 'in', ['pending', 'expired'])
    .where('pay_amount_minor', '>=', amountToDb(low))
    .where('pay_amount_minor', '<=', amountToDb(p.amountMinor + spread))
    .where('created_at', '>', p.observedAt - LOOK_BACK_MS)
    .where('created_at', '<=', p.observedAt)
    .orderBy('created_at', 'desc')
    .limit(50)
    .execute();
  const distance = (minor: bigint) => (minor > p.amountMinor ? minor - p.amountMinor : p.amountMinor - minor);
  return rows
    .map(candidateOf)
    .sort((a, b) => {
      const d = distance(a.payAmountMinor) - distance(b.payAmountMinor);
      return d < 0n ? -1 : d > 0n ? 1 : 0;
    })
    .slice(0, limit);
}

