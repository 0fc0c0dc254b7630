/** The intent as payd's API answers it (the fields the provider reads). */
export interface PaydIntent {
  intent_id: string;
  order_id: string;
  status: 'pending' | 'settled' | 'expired' | 'canceled';
  amount: number;
  amount_exact?: string;
  currency: string;
  pay_amount: number;
  pay_amount_exact?: string;
  checkout_url: string;
  payment_uri?: string;
  expires_at: string;
  livemode: boolean;
  price?: { amount: number; currency: string };
  payments?: Array<{ transaction_hash: string; amount: number; amount_exact?: string; status: 'credited' | 'held' | 'refunded'; reason: string | null }>;
}

/** An answer of payd other than 2xx: its `code` and `detail` as the API gives them. */
export class PaydApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`payd answered ${status} ${code}: ${detail}`);
  }
}

export interface PaydApi {
  createIntent(body: { amount?: string; price?: { amount: number; currency: string }; currency: string; order_id: string }): Promise<PaydIntent>;
  getIntent(intentId: string): Promise<PaydIntent>;
  cancelIntent(intentId: string): Promise<PaydIntent>;
  markRefunded(intentId: string, transactionHash: string): Promise<unknown>;
}

/** The few calls the provider makes, over the platform's fetch, each bounded by a deadline. */
export function paydApi(o: { baseUrl: string; clientId: string; clientSecret: string; timeoutMs?: number }): PaydApi {
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(`${o.baseUrl}${path}`, {
        method,
        headers: { accept: 'application/json', 'x-client-id': o.clientId, 'x-client-secret': o.clientSecret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
        redirect: 'error',
      });
    } catch (err) {
      throw new PaydApiError(0, 'UNREACHABLE', `payd at ${o.baseUrl} did not answer: ${(err as Error).message}`);
    }
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new PaydApiError(res.status, 'BAD_RESPONSE', `payd answered ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) throw new PaydApiError(res.status, String(json.code ?? 'ERROR'), String(json.detail ?? res.statusText));
    return json as T;
  };
  const id = (intentId: string) => encodeURIComponent(intentId);
  return {
    createIntent: (body) => call('POST', '/api/v1/intents/create-payment', body),
    getIntent: (intentId) => call('GET', `/api/v1/intents/${id(intentId)}`),
    cancelIntent: (intentId) => call('POST', `/api/v1/intents/${id(intentId)}/cancel`),
    markRefunded: (intentId, tx) => call('POST', `/api/v1/intents/${id(intentId)}/payments/${encodeURIComponent(tx)}/refunded`),
  };
}
