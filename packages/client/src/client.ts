import { createTransport, type Transport } from './transport.js';
import type {
  AcceptPaymentResult,
  ChosenIntent,
  CreatedIntent,
  CreateIntentInput,
  CreateOpenIntentInput,
  CreatePaymentLinkInput,
  EventPage,
  Intent,
  IntentPage,
  ListEventsQuery,
  ListIntentsQuery,
  ListPaymentLinksQuery,
  MarkRefundedResult,
  PaydEvent,
  PaymentLink,
  RotatedWebhookSecret,
  WebhookEndpoint,
} from './types.js';

export interface PaydClientOptions {
  /** Your payd's address (its `server.publicUrl`), e.g. `https://pay.example.com`. */
  baseUrl: string;
  /** From `payd merchant create`. Backend only: never ship the secret to a browser or an app. */
  clientId: string;
  clientSecret: string;
  /** Per attempt; default 30 000 ms. */
  timeoutMs?: number;
  /** Retries of a call that may be retried (see the README); default 2. 0 turns retrying off. */
  maxRetries?: number;
  /** The longest `Retry-After` (429, 503) the client waits out by itself; a longer one is thrown. Default 10 s. */
  maxRetryAfterSeconds?: number;
  /** First backoff step without a `Retry-After`; default 250 ms, doubled per retry, jittered. */
  retryDelayMs?: number;
  /** A fetch of your own (a proxy agent, a test double); default the platform's. */
  fetch?: typeof fetch;
}

const intentPath = (intentId: string) => `/api/v1/intents/${encodeURIComponent(intentId)}`;
const linkPath = (linkId: string) => `/api/v1/payment-links/${encodeURIComponent(linkId)}`;
const paymentPath = (intentId: string, transactionHash: string) => `${intentPath(intentId)}/payments/${encodeURIComponent(transactionHash)}`;

/**
 * payd's merchant API. Every method is one call (the iterators one call per page); failures
 * throw PaydApiError (with payd's `code`) or PaydNetworkError.
 */
export class PaydClient {
  readonly #call: Transport;

  constructor(options: PaydClientOptions) {
    if (!options.baseUrl || !options.clientId || !options.clientSecret) throw new TypeError('PaydClient needs baseUrl, clientId and clientSecret');
    this.#call = createTransport({
      baseUrl: options.baseUrl,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 10,
      retryDelayMs: options.retryDelayMs ?? 250,
    });
  }

  /**
   * Creates an intent, or returns the one this `order_id` already has (same amount and
   * currency; another is 409 ORDER_ID_CONFLICT). The client relies on that to retry a create
   * whose answer was lost: the retry can never make a second intent.
   */
  createIntent(input: CreateIntentInput): Promise<ChosenIntent> {
    return this.#call({ method: 'POST', path: '/api/v1/intents/create-payment', body: input, replayable: true });
  }

  getIntent(intentId: string): Promise<Intent> {
    return this.#call({ method: 'GET', path: intentPath(intentId), replayable: true });
  }

  /** One page of the list; `cursor` is the previous page's `next_cursor`. */
  listIntentsPage(query: ListIntentsQuery & { cursor?: string } = {}): Promise<IntentPage> {
    return this.#call({ method: 'GET', path: '/api/v1/intents', query, replayable: true });
  }

  /** Every intent matching the filters, newest first, fetched a page (`limit`, default 20) at a time. */
  async *listIntents(query: ListIntentsQuery = {}): AsyncGenerator<Intent, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listIntentsPage({ ...query, cursor });
      yield* page.data;
      cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
    } while (cursor);
  }

  /** Cancels a pending intent (a canceled one is returned unchanged; settled or expired: 409 INTENT_NOT_CANCELABLE). */
  cancelIntent(intentId: string): Promise<Intent> {
    return this.#call({ method: 'POST', path: `${intentPath(intentId)}/cancel`, replayable: false });
  }

  /** Settles the intent with a payment payd holds on it (payment.held). */
  acceptPayment(intentId: string, transactionHash: string): Promise<AcceptPaymentResult> {
    return this.#call({ method: 'POST', path: `${paymentPath(intentId, transactionHash)}/accept`, replayable: false });
  }

  /** Records that you returned a held payment yourself: payd moves no money. */
  markRefunded(intentId: string, transactionHash: string): Promise<MarkRefundedResult> {
    return this.#call({ method: 'POST', path: `${paymentPath(intentId, transactionHash)}/refunded`, replayable: false });
  }

  getWebhookEndpoint(): Promise<WebhookEndpoint> {
    return this.#call({ method: 'GET', path: '/api/v1/webhook-endpoint', replayable: true });
  }

  /** Where payd sends your webhooks; `null` removes it. */
  setWebhookEndpoint(url: string | null): Promise<WebhookEndpoint> {
    return this.#call({ method: 'PUT', path: '/api/v1/webhook-endpoint', body: { url }, replayable: false });
  }

  /** A new signing secret, shown this once; the previous one signs too until `previous_valid_until`. */
  rotateWebhookSecret(): Promise<RotatedWebhookSecret> {
    return this.#call({ method: 'POST', path: '/api/v1/webhook-endpoint/rotate-secret', replayable: false });
  }

  /** One page of the event feed; pass its `next_cursor` as `after` next time. */
  eventsPage(query: ListEventsQuery = {}): Promise<EventPage> {
    return this.#call({ method: 'GET', path: '/api/v1/events', query, replayable: true });
  }

  /**
   * Every event after `after` (an event id), in the order payd wrote them, until the feed is
   * caught up. Store each event's `id` once you have handled it and pass it as `after` next
   * time: the feed resumes there, missing and repeating nothing.
   */
  async *events(query: ListEventsQuery = {}): AsyncGenerator<PaydEvent, void, undefined> {
    let after = query.after;
    for (;;) {
      const page = await this.eventsPage({ ...query, after });
      yield* page.data;
      if (!page.has_more || !page.next_cursor) return;
      after = page.next_cursor;
    }
  }

  /**
   * Creates an open intent: the customer picks one of `methods` on the checkout (send them to
   * `checkout_url`). Until then `currency`, `amount` and `pay_amount` are null and `options`
   * lists the choice. Idempotent on `order_id` like `createIntent` (the same price and methods
   * return the intent), so it is retried the same way.
   */
  createOpenIntent(input: CreateOpenIntentInput): Promise<CreatedIntent> {
    return this.#call({ method: 'POST', path: '/api/v1/intents/create-payment', body: input, replayable: true });
  }

  /**
   * Creates a payment link. Not idempotent (each call makes another link), so it is never sent
   * again after a network error or a 5xx: list the links to see whether it was made.
   */
  createPaymentLink(input: CreatePaymentLinkInput): Promise<PaymentLink> {
    return this.#call({ method: 'POST', path: '/api/v1/payment-links', body: input, replayable: false });
  }

  /** Your links, newest first: `limit` of them (default 50, at most 100; the API has no further pages). */
  async listPaymentLinks(query: ListPaymentLinksQuery = {}): Promise<PaymentLink[]> {
    const list = await this.#call<{ data: PaymentLink[] }>({ method: 'GET', path: '/api/v1/payment-links', query, replayable: true });
    return list.data;
  }

  /** A link by its `link_id` or its slug (the last part of its `url`); another merchant's is 404 NOT_FOUND. */
  getPaymentLink(linkId: string): Promise<PaymentLink> {
    return this.#call({ method: 'GET', path: linkPath(linkId), replayable: true });
  }

  /**
   * Turns the link off (its page takes nothing; `status: 'inactive'`). Sets a state, so sending
   * it again leaves the same state: retried like a read.
   */
  deactivatePaymentLink(linkId: string): Promise<PaymentLink> {
    return this.#call({ method: 'POST', path: `${linkPath(linkId)}/deactivate`, replayable: true });
  }

  /** Turns the link on again; retried like `deactivatePaymentLink`. */
  activatePaymentLink(linkId: string): Promise<PaymentLink> {
    return this.#call({ method: 'POST', path: `${linkPath(linkId)}/activate`, replayable: true });
  }
}
