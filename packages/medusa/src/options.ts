import { MedusaError } from '@medusajs/framework/utils';

/** The provider's options, as written in medusa-config.ts. */
export interface PaydProviderOptions {
  /** payd's public address, e.g. https://pay.example.com (the API lives under /api/v1). */
  baseUrl: string;
  /** The merchant's client id and secret from `payd merchant create` (sk_live_… or, against the sandbox, sk_test_…). */
  clientId: string;
  clientSecret: string;
  /** The webhook signing secret (whsec_…); during a rotation give both in webhookSecrets. */
  webhookSecret?: string;
  webhookSecrets?: string[];
  /** payd's payment method for the intents (its `currency` field). Default UPI. */
  method?: string;
  /**
   * Offer the customer a choice instead of one method: each session is an open intent for the
   * cart's total, and the customer picks one of these methods (or "all" enabled ones that can
   * take the price) on payd's checkout. Give method or methods, not both.
   */
  methods?: string[] | 'all';
  /** A settled intent is money received: Medusa sees it as captured (default) or only authorized. */
  capture?: boolean;
  /**
   * payd moves no money, so a refund is always returned by the merchant. "refuse" (default): a
   * refund in Medusa fails with that explanation. "recordReturned": a refund recorded in Medusa
   * means the merchant has returned the money; the provider then marks the intent's held
   * payments of that amount refunded in payd.
   */
  refunds?: 'refuse' | 'recordReturned';
  /** How old a webhook's timestamp may be, in seconds (Standard Webhooks' 5 minutes by default). */
  webhookToleranceSeconds?: number;
}

export interface ValidOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  webhookSecrets: string[];
  /** The one method of every intent, or null when sessions are open intents (methods). */
  method: string | null;
  /** The methods an open intent offers, or null when sessions name one method. */
  methods: string[] | 'all' | null;
  capture: boolean;
  refunds: 'refuse' | 'recordReturned';
  webhookToleranceSeconds: number;
}

const invalid = (message: string) => new MedusaError(MedusaError.Types.INVALID_DATA, `payd payment provider: ${message}`);

const text = (value: unknown, name: string): string => {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`option ${name} is required (a non-empty string)`);
  return value.trim();
};

const offered = (value: unknown): string[] | 'all' => {
  if (value === 'all') return value;
  if (!Array.isArray(value) || value.length === 0 || !value.every((m) => typeof m === 'string' && m.trim() !== '')) {
    throw invalid('option methods must be "all" or a non-empty list of payd methods, e.g. ["UPI", "USDT_TRC20"]');
  }
  return value.map((m: string) => m.trim());
};

/** Checks the options once, at start-up, so a typo fails the boot and not a customer's checkout. */
export function validateOptions(options: Record<string, unknown>): ValidOptions {
  const baseUrl = text(options.baseUrl, 'baseUrl');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalid(`option baseUrl is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`option baseUrl must be an http(s) URL, not ${url.protocol}`);
  if (url.username || url.password) throw invalid('option baseUrl must not carry credentials: give clientId and clientSecret');
  const clientId = text(options.clientId, 'clientId');
  const clientSecret = text(options.clientSecret, 'clientSecret');
  if (!/^sk_(live|test)_/.test(clientSecret)) throw invalid('option clientSecret must be a payd client secret (sk_live_… or sk_test_…)');

  const given = [...(options.webhookSecret === undefined ? [] : [options.webhookSecret]), ...(options.webhookSecrets === undefined ? [] : Array.isArray(options.webhookSecrets) ? options.webhookSecrets : [null])];
  if (given.length === 0) throw invalid('option webhookSecret (or webhookSecrets during a rotation) is required: webhooks cannot be verified without it');
  const webhookSecrets = given.map((secret) => {
    if (typeof secret !== 'string' || !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret.trim())) throw invalid('webhook secrets must be payd signing secrets (whsec_ followed by base64)');
    return secret.trim();
  });

  if (options.method !== undefined && options.methods !== undefined) throw invalid('give option method (one method) or methods (the customer chooses), not both');
  const methods = options.methods === undefined ? null : offered(options.methods);
  const method = methods !== null ? null : options.method === undefined ? 'UPI' : text(options.method, 'method');
  if (options.capture !== undefined && typeof options.capture !== 'boolean') throw invalid('option capture must be true or false');
  const refunds = options.refunds ?? 'refuse';
  if (refunds !== 'refuse' && refunds !== 'recordReturned') throw invalid('option refunds must be "refuse" or "recordReturned"');
  const tolerance = options.webhookToleranceSeconds ?? 300;
  if (typeof tolerance !== 'number' || !Number.isInteger(tolerance) || tolerance <= 0) throw invalid('option webhookToleranceSeconds must be a positive whole number of seconds');

  return { baseUrl: baseUrl.replace(/\/+$/, ''), clientId, clientSecret, webhookSecrets, method, methods, capture: options.capture !== false, refunds, webhookToleranceSeconds: tolerance };
}
