import type { IntentsTable } from '../../db/schema.ts';
import { effectiveStatus } from '../../domain/intent.ts';

/**
 * What the page, the status endpoint and the websocket tell a customer about one
 * intent. Deliberately small: no merchant data, amounts or addresses (the page
 * already shows those); just enough to switch state and redirect.
 */
export interface CheckoutState {
  intent_id: string;
  status: IntentsTable['status'];
  expires_at: string;
  /** Server time, ms since epoch: the countdown corrects for the customer's clock. */
  now: number;
  /** Where the page sends the customer after settlement; null without a return_url. */
  redirect_url: string | null;
  /** Once settled: the payment's reference (UTR, transaction id), for the customer's records. */
  transaction_hash: string | null;
}

export function checkoutState(row: IntentsTable, now: number): CheckoutState {
  const status = effectiveStatus(row, now);
  return {
    intent_id: row.id,
    status,
    expires_at: new Date(row.expires_at).toISOString(),
    now,
    redirect_url: status === 'settled' ? returnUrl(row) : null,
    transaction_hash: status === 'settled' ? row.transaction_hash : null,
  };
}

/** return_url plus intent_id and order_id, keeping the merchant's own query; http(s) only. */
export function returnUrl(row: Pick<IntentsTable, 'id' | 'order_id' | 'return_url'>): string | null {
  if (!row.return_url) return null;
  let url: URL;
  try {
    url = new URL(row.return_url);
  } catch {
    return null;
  }
  // The create API already enforces this; checked again because it becomes a navigation target.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.searchParams.set('intent_id', row.id);
  url.searchParams.set('order_id', row.order_id);
  return url.toString();
}
