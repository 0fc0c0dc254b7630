import { effectiveStatus, type Intent, type IntentStatus } from '../../domain/intent.ts';

/**
 * What the page, the status endpoint and the websocket tell a customer about one
 * intent. Deliberately small: no merchant data, amounts or addresses (the page
 * already shows those); just enough to switch state and redirect.
 */
export interface CheckoutState {
  intent_id: string;
  status: IntentStatus;
  expires_at: string;
  /** Server time, ms since epoch: the countdown corrects for the customer's clock. */
  now: number;
  /** Where the page sends the customer after settlement; null without a return_url. */
  redirect_url: string | null;
  /** Once settled: the payment's reference (UTR, transaction id), for the customer's records. */
  transaction_hash: string | null;
  /**
   * How many payments the intent shows (credited parts, held, refunded). When it changes
   * the page reloads itself to show what arrived (a held payment, what is still due), not the amounts here.
   */
  payments: number;
}

export function checkoutState(intent: Intent, now: number): CheckoutState {
  const status = effectiveStatus(intent, now);
  return {
    intent_id: intent.id,
    status,
    expires_at: new Date(intent.expiresAt).toISOString(),
    now,
    redirect_url: status === 'settled' ? returnUrl(intent) : null,
    transaction_hash: status === 'settled' ? intent.transactionHash : null,
    payments: intent.paymentCount ?? 0,
  };
}

/** return_url plus intent_id and order_id, keeping the merchant's own query; http(s) only. */
export function returnUrl(intent: Pick<Intent, 'id' | 'orderId' | 'returnUrl'>): string | null {
  if (!intent.returnUrl) return null;
  let url: URL;
  try {
    url = new URL(intent.returnUrl);
  } catch {
    return null;
  }
  // The create API already enforces this; checked again because it becomes a navigation target.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.searchParams.set('intent_id', intent.id);
  url.searchParams.set('order_id', intent.orderId);
  return url.toString();
}
