import { AbstractPaymentProvider, BigNumber, MedusaError, PaymentSessionStatus } from '@medusajs/framework/utils';
import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  BigNumberInput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from '@medusajs/framework/types';
import { PaydApiError, PaydClient, PaydNetworkError, verifyWebhook, WebhookVerificationError, type CreateIntentInput, type CreateOpenIntentInput, type Intent } from '@payd/client';
import { validateOptions, type PaydProviderOptions, type ValidOptions } from './options';

/** What the provider keeps in the payment session's `data` (Medusa stores it; the storefront reads checkout_url). */
export interface PaydSessionData extends Record<string, unknown> {
  session_id: string;
  intent_id: string;
  order_id: string;
  /** The hosted checkout page to send the customer to. */
  checkout_url: string;
  payment_uri: string | null;
  /**
   * What the customer must pay (payd makes it unique per intent): show this, not the cart total.
   * Null on an open intent until the customer has chosen a method on the checkout.
   */
  pay_amount: string | null;
  /** payd's method; null on an open intent until the customer has chosen one. */
  currency: string | null;
  amount: string;
  currency_code: string;
  expires_at: string;
  livemode: boolean;
  intent_status: Intent['status'];
  /** Bumped when the cart's total changes: each revision is its own intent, `<session_id>.<revision>`. */
  revision: number;
}

// Medusa's payment session ids; an intent of the same merchant created by anything else is not ours.
const ORDER_ID = /^(payses_[0-9A-Za-z]+)(?:\.(\d+))?$/;
const FIAT_DECIMALS: Record<string, number> = { INR: 2, USD: 2, EUR: 2 };

export class PaydPaymentProviderService extends AbstractPaymentProvider<PaydProviderOptions> {
  static override identifier = 'payd';

  private readonly settings: ValidOptions;
  private readonly payd: PaydClient;

  static override validateOptions(options: Record<string, unknown>): void {
    validateOptions(options);
  }

  constructor(container: Record<string, unknown>, options: PaydProviderOptions) {
    super(container, options);
    this.settings = validateOptions(options as unknown as Record<string, unknown>);
    const { baseUrl, clientId, clientSecret } = this.settings;
    this.payd = new PaydClient({ baseUrl, clientId, clientSecret });
  }

  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const sessionId = input.data?.session_id;
    if (typeof sessionId !== 'string' || !ORDER_ID.test(sessionId)) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, 'payd: initiatePayment needs the payment session id (data.session_id), which the Payment Module passes');
    }
    const data = await this.createFor(sessionId, 0, input.amount, input.currency_code);
    return { id: data.intent_id, status: PaymentSessionStatus.PENDING, data };
  }

  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const data = this.sessionData(input.data);
    const amount = fiatText(input.amount, input.currency_code);
    if (amount === data.amount && input.currency_code.toUpperCase() === data.currency_code) return { data, status: statusOf(data.intent_status, [], this.settings.capture) };
    // An intent's amount is fixed (its order_id is idempotent on it): a new total is a new intent, the old one canceled.
    const old = await this.call(() => this.payd.getIntent(data.intent_id));
    if (old.status === 'settled') throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `payd: intent ${old.intent_id} is already paid; the cart's total cannot change now`);
    if (old.status === 'pending') await this.cancelIntent(old.intent_id);
    const next = await this.createFor(data.session_id, data.revision + 1, input.amount, input.currency_code);
    return { data: next, status: PaymentSessionStatus.PENDING };
  }

  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    const data = this.sessionData(input.data);
    // A deleted session's intent must not be paid any more: cancel it while it is pending. Money
    // that still arrives is held on it by payd (payment.held), never lost.
    const intent = await this.call(() => this.payd.getIntent(data.intent_id));
    if (intent.status === 'pending') await this.cancelIntent(intent.intent_id);
    return { data };
  }

  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    const intent = await this.read(input.data);
    return { status: statusOf(intent.status, intent.payments ?? [], this.settings.capture), data: refreshed(this.sessionData(input.data), intent) };
  }

  async getPaymentStatus(input: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const intent = await this.read(input.data);
    return { status: statusOf(intent.status, intent.payments ?? [], this.settings.capture), data: refreshed(this.sessionData(input.data), intent) };
  }

  async retrievePayment(input: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const intent = await this.read(input.data);
    return { data: { ...refreshed(this.sessionData(input.data), intent), payments: intent.payments ?? [] } };
  }

  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    // payd settles when the money has arrived: capturing only confirms that it has.
    const intent = await this.read(input.data);
    if (intent.status !== 'settled') throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `payd: intent ${intent.intent_id} is ${intent.status}, not paid; there is nothing to capture`);
    return { data: { ...this.sessionData(input.data), intent_status: intent.status } };
  }

  async cancelPayment(input: CancelPaymentInput): Promise<CancelPaymentOutput> {
    const data = this.sessionData(input.data);
    const intent = await this.cancelIntent(data.intent_id);
    return { data: { ...data, intent_status: intent.status } };
  }

  async refundPayment(input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const data = this.sessionData(input.data);
    const amount = fiatText(input.amount, data.currency_code);
    if (this.settings.refunds !== 'recordReturned') {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `payd moves no money and cannot send ${amount} ${data.currency_code} back: return it to the customer yourself (from your bank or wallet), then record it with the provider option refunds: "recordReturned"`,
      );
    }
    // Told that the merchant returned the money: payd records it on the payments it holds for this
    // intent (a second or late payment), so its ledger agrees; a credited payment is Medusa's to record.
    const intent = await this.read(input.data);
    const marked: string[] = [];
    for (const payment of intent.payments ?? []) {
      if (payment.status !== 'held' || (payment.amount_exact ?? String(payment.amount)) !== stripZeros(amount)) continue;
      await this.call(() => this.payd.markRefunded(intent.intent_id, payment.transaction_hash));
      marked.push(payment.transaction_hash);
      break;
    }
    const refunds = Array.isArray(data.refunds) ? data.refunds : [];
    return { data: { ...data, refunds: [...refunds, { amount, returned_by: 'merchant', payd_refunded: marked }] } };
  }

  async getWebhookActionAndData(payload: ProviderWebhookPayload['payload']): Promise<WebhookActionResult> {
    const raw = payload.rawData;
    if (raw === undefined || raw === null || (typeof raw !== 'string' && !Buffer.isBuffer(raw))) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, 'payd: the webhook needs its raw body (rawData) to verify the signature');
    }
    let event: any;
    try {
      event = await verifyWebhook(raw, payload.headers as Record<string, string | string[] | undefined>, this.settings.webhookSecrets, { toleranceSeconds: this.settings.webhookToleranceSeconds });
    } catch (err) {
      if (err instanceof WebhookVerificationError) throw new MedusaError(MedusaError.Types.UNAUTHORIZED, `payd webhook refused: ${err.message}`);
      throw err;
    }
    const notSupported: WebhookActionResult = { action: 'not_supported' };
    if (event?.type === 'payment.success') {
      const intent = event.data as Intent & { underpaid_by?: number; settled_by?: string };
      const session = ORDER_ID.exec(String(intent.order_id ?? ''));
      if (!session) return notSupported;
      const amount = amountOf(intent);
      // Short money settled by an operator is for the shop to check, not to ship on.
      if (intent.underpaid_by !== undefined && intent.settled_by !== 'merchant') return { action: 'requires_more', data: { session_id: session[1]!, amount } };
      return { action: this.settings.capture ? 'captured' : 'authorized', data: { session_id: session[1]!, amount } };
    }
    if (event?.type === 'payment.held') {
      // The held event names the intent, not the order: read it for the session.
      const intent = await this.call(() => this.payd.getIntent(String(event.data?.intent_id)));
      const session = ORDER_ID.exec(intent.order_id);
      if (!session) return notSupported;
      return { action: 'requires_more', data: { session_id: session[1]!, amount: amountOf(intent) } };
    }
    return notSupported;
  }

  private async createFor(sessionId: string, revision: number, amountInput: BigNumberInput, currencyCode: string): Promise<PaydSessionData> {
    const code = currencyCode.toUpperCase();
    const amount = fiatText(amountInput, code);
    const orderId = revision === 0 ? sessionId : `${sessionId}.${revision}`;
    const { method, methods } = this.settings;
    // The price goes as decimal text: payd takes it as given, with no float rounding on the way.
    const price = { amount, currency: code };
    let intent: Intent;
    if (methods !== null) {
      // An open intent: the customer picks the method on payd's checkout, each quoted from this price.
      intent = await this.call(() => this.payd.createOpenIntent({ price, methods: methods as CreateOpenIntentInput['methods'], order_id: orderId }));
    } else if (method === 'UPI') {
      // UPI is paid in rupees: the cart's INR total is the intent's amount.
      if (code !== 'INR') throw new MedusaError(MedusaError.Types.INVALID_DATA, `payd: UPI takes INR only, and this cart is in ${code}`);
      intent = await this.call(() => this.payd.createIntent({ amount, currency: 'UPI', order_id: orderId }));
    } else {
      intent = await this.call(() => this.payd.createIntent({ price, currency: method as CreateIntentInput['currency'], order_id: orderId }));
    }
    return {
      session_id: sessionId,
      intent_id: intent.intent_id,
      order_id: intent.order_id,
      checkout_url: intent.checkout_url,
      payment_uri: intent.payment_uri ?? null,
      pay_amount: payAmountOf(intent),
      currency: intent.currency,
      amount,
      currency_code: code,
      expires_at: intent.expires_at,
      livemode: intent.livemode,
      intent_status: intent.status,
      revision,
    };
  }

  private async cancelIntent(intentId: string): Promise<Intent> {
    try {
      return await this.payd.cancelIntent(intentId);
    } catch (err) {
      if (!(err instanceof PaydApiError) || err.code !== 'INTENT_NOT_CANCELABLE') throw toMedusaError(err);
    }
    const intent = await this.call(() => this.payd.getIntent(intentId));
    if (intent.status === 'expired') return intent;
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `payd: intent ${intentId} is paid (settled) and cannot be canceled; payd moves no money: return it to the customer yourself`,
    );
  }

  private read(data: Record<string, unknown> | undefined): Promise<Intent> {
    const { intent_id } = this.sessionData(data);
    return this.call(() => this.payd.getIntent(intent_id));
  }

  private sessionData(data: Record<string, unknown> | undefined): PaydSessionData {
    if (!data || typeof data.intent_id !== 'string' || typeof data.session_id !== 'string') {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, 'payd: this payment has no payd intent (data.intent_id is missing)');
    }
    return data as PaydSessionData;
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toMedusaError(err);
    }
  }
}

/** The session's data as the intent now reads: its status, and an open intent's method and pay amount once the customer chose. */
function refreshed(data: PaydSessionData, intent: Intent): PaydSessionData {
  return { ...data, intent_status: intent.status, currency: intent.currency, pay_amount: payAmountOf(intent), payment_uri: intent.payment_uri ?? null };
}

const payAmountOf = (intent: Intent): string | null => intent.pay_amount_exact ?? (intent.pay_amount === null ? null : String(intent.pay_amount));

/** Medusa's session status for an intent: settled is money received; a held payment waits for the shop. */
function statusOf(status: Intent['status'], payments: NonNullable<Intent['payments']>, capture: boolean): PaymentSessionStatus {
  if (status === 'settled') return capture ? PaymentSessionStatus.CAPTURED : PaymentSessionStatus.AUTHORIZED;
  if (payments.some((p) => p.status === 'held')) return PaymentSessionStatus.REQUIRES_MORE;
  if (status === 'pending') return PaymentSessionStatus.PENDING;
  return PaymentSessionStatus.CANCELED;
}

/** A Medusa amount as exact decimal text, refused when it has more decimals than the currency. */
function fiatText(input: BigNumberInput, currencyCode: string): string {
  const code = currencyCode.toUpperCase();
  const decimals = FIAT_DECIMALS[code];
  if (decimals === undefined) throw new MedusaError(MedusaError.Types.INVALID_DATA, `payd: prices in ${code} are not supported (INR, USD or EUR)`);
  const text = new BigNumber(input).bigNumber?.toFixed();
  if (!text || !/^\d+(\.\d+)?$/.test(text) || /^0+(\.0+)?$/.test(text)) throw new MedusaError(MedusaError.Types.INVALID_DATA, `payd: the amount must be a positive number, not ${String(text)}`);
  const fraction = text.split('.')[1] ?? '';
  if (fraction.length > decimals) throw new MedusaError(MedusaError.Types.INVALID_DATA, `payd: ${text} ${code} has more than ${decimals} decimals`);
  return text;
}

const stripZeros = (text: string) => (text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text);

function toMedusaError(err: unknown): Error {
  if (err instanceof MedusaError) return err;
  if (err instanceof PaydApiError) {
    const type =
      err.status === 404 ? MedusaError.Types.NOT_FOUND
      : err.status === 409 ? MedusaError.Types.CONFLICT
      : err.status === 400 ? MedusaError.Types.INVALID_DATA
      : err.status === 401 || err.status === 403 ? MedusaError.Types.UNAUTHORIZED
      : MedusaError.Types.UNEXPECTED_STATE;
    return new MedusaError(type, `payd: ${err.code}: ${err.detail}`);
  }
  if (err instanceof PaydNetworkError) return new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `payd did not answer: ${err.message}`);
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * What the session was for: the fiat price the cart gave, or the amount asked. An intent this
 * provider created always has one (it names its method); one without is not ours to act on.
 */
function amountOf(intent: Pick<Intent, 'price' | 'amount_exact' | 'amount' | 'intent_id'>): string | number {
  const amount = intent.price?.amount_exact ?? intent.price?.amount ?? intent.amount_exact ?? intent.amount;
  if (amount === null || amount === undefined) throw new MedusaError(MedusaError.Types.INVALID_DATA, `payd: intent ${intent.intent_id} has no amount yet (its customer has not chosen how to pay)`);
  return amount;
}
