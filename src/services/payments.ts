import type { Db } from '../db/open.ts';
import { amountFromDb } from '../db/amounts.ts';
import type { PaymentsTable } from '../db/schema.ts';
import { exactAmount } from '../domain/intent.ts';
import { formatMinor } from '../domain/money.ts';
import type { MethodRegistry } from '../methods/registry.ts';
import { unmatchedCandidates } from './unmatched-candidates.ts';

export const paymentView = (p: PaymentsTable, decimals: number) => ({
  payment_id: p.id,
  method: p.method,
  tx_ref: p.tx_ref,
  receiver: p.receiver,
  ...exactAmount('amount', formatMinor(amountFromDb(p.amount_minor), decimals)),
  status: p.status,
  reason: p.reason,
  intent_id: p.intent_id,
  source: p.source,
  occurred_at: new Date(p.occurred_at).toISOString(),
  observed_at: new Date(p.observed_at).toISOString(),
  note: p.note,
  evidence: p.evidence_json ? (JSON.parse(p.evidence_json) as unknown) : null,
});

/** Read side of recorded payments, for the operator. */
export function createPaymentQueries(deps: { db: Db; methods: MethodRegistry }) {
  const view = (p: PaymentsTable) => paymentView(p, deps.methods.of(p.method).rules.decimals);
  return {
    async list(filter: { unmatched?: boolean; limit?: number }) {
      let q = deps.db.selectFrom('payments').selectAll().orderBy('observed_at', 'desc').limit(filter.limit ?? 50);
      if (filter.unmatched) q = q.where('status', '=', 'unmatched');
      return (await q.execute()).map(view);
    },
    /** Unmatched payments, newest first, each with the intents it may have been meant for (closest amount first). */
    async unmatched(limit = 50) {
      const rows = await deps.db.selectFrom('payments').selectAll().where('status', '=', 'unmatched').orderBy('observed_at', 'desc').limit(limit).execute();
      return Promise.all(
        rows.map(async (p) => ({
          ...view(p),
          candidates: await unmatchedCandidates(deps.db, { method: p.method, receiver: p.receiver, amountMinor: amountFromDb(p.amount_minor), observedAt: Number(p.observed_at) }),
        })),
      );
    },
    async forIntent(intentId: string) {
      return (await deps.db.selectFrom('payments').selectAll().where('intent_id', '=', intentId).orderBy('observed_at').execute()).map(view);
    },
    /** What became of one observed transfer: the payment it was recorded as, or its rejection. */
    async outcomeOf(method: string, txRef: string) {
      const p = await deps.db.selectFrom('payments').selectAll().where('method', '=', method).where('tx_ref', '=', txRef).executeTakeFirst();
      if (p) return { kind: 'payment' as const, payment: view(p) };
      const r = await deps.db.selectFrom('rejections').select(['reason']).where('ref', '=', `${method}:${txRef}`).executeTakeFirst();
      return r ? { kind: 'rejected' as const, reason: r.reason } : { kind: 'unseen' as const };
    },
    async rejections(limit = 50) {
      const rows = await deps.db.selectFrom('rejections').select(['ref', 'source', 'method', 'reason', 'detail_json', 'observed_at']).orderBy('observed_at', 'desc').limit(limit).execute();
      return rows.map((r) => ({ ref: r.ref, source: r.source, method: r.method, reason: r.reason, detail: r.detail_json ? (JSON.parse(r.detail_json) as unknown) : null, observed_at: new Date(r.observed_at).toISOString() }));
    },
  };
}
