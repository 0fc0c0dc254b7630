import { amountFromDb } from '../db/amounts.ts';
import type { Db } from '../db/open.ts';
import { intentFromRow } from '../db/intent-rows.ts';
import type { PaymentsTable } from '../db/schema.ts';
import { PaydError } from '../domain/errors.ts';
import { type Intent, type IntentView, type ShownPayment, type ViewContext } from '../domain/intent.ts';
import type { Method } from '../domain/methods.ts';
import { fetchedView, shownPayment } from './intents/money.ts';
import type { HeldAction } from './ledger/held.ts';
import { UUID_V4 } from '../domain/ids.ts';

/** A payment attributed to an intent, for the merchant's API, the CLI, the console and notifications. */
export interface PaymentRow {
  intentId: string;
  merchantId: string;
  /** The intent's order id, and what it asked (minor units): what a person looks the payment up by. */
  orderId: string;
  payAmount: bigint;
  method: Method;
  transactionHash: string;
  /** Minor units of the method. */
  amount: bigint;
  receivedAt: number;
  status: ShownPayment['status'];
  reason: ShownPayment['reason'];
}

export interface ListPaymentsInput {
  status?: ShownPayment['status'];
  merchantId?: string;
  intentId?: string;
  cursor?: string;
  limit?: number;
}

export interface HeldActionInput {
  intentId: string;
  transactionHash: string;
  /** Only an intent of this merchant (the API); absent: the operator's (CLI, console, bot). */
  merchantId?: string;
  /** Written to the audit log: "api:<merchant>", "cli", "console:<device>", "telegram:@user". */
  actor: string;
}

const ROW_STATUS: Record<ShownPayment['status'], PaymentsTable['status']> = { credited: 'matched', held: 'held', refunded: 'refunded' };
const MAX_LIMIT = 200;

const encodeCursor = (observedAt: number, id: string) => Buffer.from(`${observedAt}|${id}`, 'utf8').toString('base64url');
function decodeCursor(cursor: string): { observedAt: number; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const observedAt = Number(at);
  if (!Number.isSafeInteger(observedAt) || !id) throw new PaydError('INVALID_REQUEST', 'cursor is not one this list handed out', { errors: [{ field: 'cursor', message: 'unknown cursor' }] });
  return { observedAt, id };
}

/**
 * Held payments: the shared service the API, the CLI, the console and the
 * notification bot use to list payments attributed to intents and to resolve held ones.
 * Decisions themselves are the ledger's (one transaction with their outbox event).
 */
export function createHeldPayments(deps: { db: Db; ledger: { acceptHeld: HeldAction; markRefunded: HeldAction }; view: () => ViewContext }) {
  const notFound = (id: string) => new PaydError('INTENT_NOT_FOUND', `no payment intent ${JSON.stringify(id)}`);

  async function load(intentId: string, merchantId: string | undefined): Promise<Intent> {
    const row = UUID_V4.test(intentId) ? await deps.db.selectFrom('intents').selectAll().where('id', '=', intentId.toLowerCase()).executeTakeFirst() : undefined;
    if (!row || (merchantId !== undefined && row.merchant_id !== merchantId)) throw notFound(intentId);
    return intentFromRow(row);
  }

  async function current(intentId: string): Promise<IntentView> {
    const intent = await load(intentId, undefined);
    return fetchedView(deps.db, intent, deps.view());
  }

  return {
    async listPayments(input: ListPaymentsInput = {}): Promise<{ items: PaymentRow[]; nextCursor: string | null }> {
      const limit = Math.min(Math.max(1, input.limit ?? 50), MAX_LIMIT);
      let q = deps.db
        .selectFrom('payments as p')
        .innerJoin('intents as i', 'i.id', 'p.intent_id')
        .select(['p.id', 'p.intent_id', 'p.method', 'p.tx_ref', 'p.tx_hash', 'p.amount_minor', 'p.occurred_at', 'p.observed_at', 'p.status', 'p.reason', 'i.merchant_id', 'i.order_id', 'i.pay_amount_minor'])
        .where('p.status', 'in', input.status ? [ROW_STATUS[input.status]] : ['matched', 'held', 'refunded']);
      if (input.merchantId !== undefined) q = q.where('i.merchant_id', '=', input.merchantId);
      if (input.intentId !== undefined) q = q.where('p.intent_id', '=', input.intentId.toLowerCase());
      if (input.cursor !== undefined) {
        const at = decodeCursor(input.cursor);
        q = q.where((eb) => eb(eb.refTuple('p.observed_at', 'p.id'), '<', eb.tuple(at.observedAt, at.id)));
      }
      const rows = await q.orderBy('p.observed_at', 'desc').orderBy('p.id', 'desc').limit(limit + 1).execute();
      const page = rows.slice(0, limit);
      const items = page.map((r) => {
        const shown = shownPayment(r)!;
        return { intentId: r.intent_id!, merchantId: r.merchant_id, orderId: r.order_id, payAmount: amountFromDb(r.pay_amount_minor), method: r.method as Method, transactionHash: shown.transactionHash, amount: shown.amountMinor, receivedAt: shown.receivedAt, status: shown.status, reason: shown.reason };
      });
      const last = page.at(-1);
      return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.observed_at, last.id) : null };
    },

    /** Accepts a held payment: the intent settles with it. Idempotent; 409 PAYMENT_NOT_ACCEPTABLE, 404 INTENT_NOT_FOUND. */
    async acceptPayment(input: HeldActionInput): Promise<IntentView> {
      const intent = await load(input.intentId, input.merchantId);
      await deps.ledger.acceptHeld({ intent, transactionHash: input.transactionHash, actor: input.actor });
      return current(intent.id);
    },

    /** Records that the merchant returned a held payment (status refunded, event payment.refunded). */
    async markRefunded(input: HeldActionInput): Promise<IntentView> {
      const intent = await load(input.intentId, input.merchantId);
      await deps.ledger.markRefunded({ intent, transactionHash: input.transactionHash, actor: input.actor });
      return current(intent.id);
    },
  };
}

export type HeldPayments = ReturnType<typeof createHeldPayments>;
