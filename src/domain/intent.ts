import type { IntentsTable } from '../db/schema.ts';
import { isoUtc } from './iso-time.ts';
import { DecimalNumber } from './json.ts';
import { METHOD_RULES, type Method } from './methods.ts';
import { formatMinor } from './money.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : isoUtc(ms));

/** A pending intent past its expiry reads as expired even before housekeeping writes it. */
export function effectiveStatus(row: Pick<IntentsTable, 'status' | 'expires_at'>, now: number): IntentsTable['status'] {
  return row.status === 'pending' && now >= row.expires_at ? 'expired' : row.status;
}

export interface ViewContext {
  now: number;
  livemode: boolean;
  /** Base of checkout_url, without trailing slash. */
  publicUrl: string;
}

/** The fetch response (spec fields first, then ours). Also the `data` of every webhook. */
export function intentView(row: IntentsTable, ctx: ViewContext) {
  const decimals = METHOD_RULES[row.method as Method].decimals;
  const amount = (minor: number) => new DecimalNumber(formatMinor(BigInt(minor), decimals));
  return {
    intent_id: row.id,
    amount: amount(row.amount_minor),
    currency: row.method,
    status: effectiveStatus(row, ctx.now),
    transaction_hash: row.transaction_hash,
    verified_at: iso(row.verified_at),
    canceled_at: iso(row.canceled_at ?? null),
    order_id: row.order_id,
    pay_amount: amount(row.pay_amount_minor),
    payment_address: row.receiver,
    payment_uri: row.payment_uri,
    reference: row.reference ?? undefined,
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
    checkout_url: `${ctx.publicUrl}/pay/${row.id}`,
    return_url: row.return_url ?? undefined,
    livemode: ctx.livemode,
  };
}

export type IntentView = ReturnType<typeof intentView>;

/** The create response: `success` plus the same fields. */
export const createdView = (row: IntentsTable, ctx: ViewContext) => ({ success: true, ...intentView(row, ctx) });
