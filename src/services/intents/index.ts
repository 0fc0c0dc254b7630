import type { IntentStore } from '../../db/intent-store.ts';
import { andThen, type Awaitable } from '../../domain/awaitable.ts';
import type { Db } from '../../db/open.ts';
import { intentFromRow } from '../../db/intent-rows.ts';
import { payeeShown } from '../../domain/payee.ts';
import { PaydError } from '../../domain/errors.ts';
import { chosenIntent, createdView, intentView, NO_MONEY, type ChosenIntent, type Intent, type IntentPricing, type IntentStatus, type IntentView, type ViewContext } from '../../domain/intent.ts';
import type { Method } from '../../domain/methods.ts';
import { noopMetrics, type Clock, type Logger, type Metrics, type Random } from '../../domain/ports.ts';
import type { MethodAmounts } from '../../config/read.ts';
import type { MethodRegistry } from '../../methods/registry.ts';
import { methodLabels } from '../../methods/method.ts';
import type { Fiat } from '../../domain/rates.ts';
import { UUID_V4 } from '../../domain/ids.ts';
import type { Merchant } from '../merchants/index.ts';
import { selectIntents } from './list.ts';
import type { Outbox } from '../events/outbox.ts';
import { fetchedView, moneyOf } from './money.ts';
import { checkAmount, checkMethod, checkPrice } from './checks.ts';
import type { CreateIntentInput, FiatPrice, MethodDeposit } from './inputs.ts';
import { expireDue } from './expiry.ts';
import { quotePrice, type QuoteDeps } from './quote.ts';
import { createPoolWatch, reserveAmount } from './reserve.ts';
import { chooseMethod, methodOptions, offeredMethods, openPrice, type OpenIntentDeps } from './open.ts';
import type { OpenIntentInput } from './inputs.ts';

export interface IntentServiceDeps extends QuoteDeps {
  db: Db;
  /** Prepared statements and group commit for create and fetch. */
  store: IntentStore;
  clock: Clock;
  random: Random;
  /** The enabled methods. */
  methods: Partial<Record<Method, MethodDeposit>>;
  /** Every method payd knows (an intent of a method since disabled still reads in its decimals). */
  registry: MethodRegistry;
  amountReuseCooldownSeconds: number;
  livemode: boolean;
  publicUrl: string;
  outbox: Outbox;
  metrics?: Metrics;
  /** Warnings (an amount pool nearly full); default: none. */
  log?: Logger;
}

/**
 * Create, fetch and list intents, and expire them. The create's steps live in intents/: the
 * checks of the request, the fiat quote, the reservation of a unique pay amount.
 */
export function createIntentService(deps: IntentServiceDeps) {
  const metrics = deps.metrics ?? noopMetrics;
  const notePoolUse = createPoolWatch({ metrics, log: deps.log, clock: deps.clock });
  const decimalsOf = (method: Method): number => deps.registry.of(method).rules.decimals;
  const labelsOf = (method: Method) => methodLabels(deps.registry.of(method));
  const ctx = (): ViewContext => ({ now: deps.clock.now(), livemode: deps.livemode, publicUrl: deps.publicUrl, decimalsOf, labelsOf });

  /** A retried create: same method and the same amount, or the same price (the rate may have moved since). */
  function sameRequest(intent: Intent, method: Method, amountMinor: bigint | null, price: IntentPricing | null): boolean {
    if (intent.method !== method) return false;
    if (price) return intent.pricing?.priceCurrency === price.priceCurrency && intent.pricing.priceAmount === price.priceAmount;
    return intent.pricing === null && intent.amountMinor === amountMinor;
  }

  const open: OpenIntentDeps = { ...deps, labelsOf };

  return {
    /**
     * An open intent: priced in fiat, no method yet; the customer picks one of the offered methods
     * on the checkout (chooseMethod). A retried create of the same order and price returns it.
     */
    async createOpen(merchant: Merchant, input: OpenIntentInput) {
      const price = openPrice(input);
      const { text, fiat } = checkPrice(price);
      const methods = await offeredMethods(open, price, input.methods);
      const row = await deps.store.write(async (w): Promise<Intent> => {
        const existing = await w.byOrder(merchant.clientId, input.order_id);
        if (existing) {
          const same = existing.open && existing.open.price.currency === fiat && existing.open.price.amount === text && existing.open.methods.join(',') === methods.join(',');
          if (!same) throw conflict(input.order_id);
          return existing;
        }
        const now = deps.clock.now();
        const intent: Intent = {
          id: deps.random.uuid(),
          merchantId: merchant.clientId,
          orderId: input.order_id,
          method: null,
          amountMinor: 0n,
          payAmountMinor: 0n,
          receiver: '',
          reference: null,
          paymentUri: '',
          status: 'pending',
          returnUrl: input.return_url ?? null,
          createdAt: now,
          expiresAt: now + deps.ttlSeconds * 1000,
          transactionHash: null,
          verifiedAt: null,
          paymentId: null,
          updatedAt: now,
          canceledAt: null,
          pricing: null,
          open: { price: { amount: text, currency: fiat }, methods, choices: [] },
        };
        await w.insert(intent);
        return intent;
      });
      return createdView(row, ctx());
    },

    /** The methods that can take this price now (the checkout's choice, a payment link's page). */
    methodOptions: (price: FiatPrice, offered: readonly string[] | 'all') => methodOptions(open, price, offered),

    /** The customer's choice on an open intent (open.ts chooseMethod): the intent as it now is. */
    chooseMethod: (intentId: string, currency: string, merchant: Pick<Merchant, 'name'>) =>
      UUID_V4.test(intentId) ? chooseMethod(open, intentId.toLowerCase(), currency, merchant) : Promise.reject(notFound(intentId)),

    /** `from.linkId`: a customer chose a method on this payment link (services/links); the API never sets it. */
    async create(merchant: Merchant, input: CreateIntentInput, from?: { linkId: string }) {
      let method: Method, deposit: MethodDeposit;
      let amountMinor: bigint | null = null;
      let quoted: Promise<{ amountMinor: bigint; pricing: IntentPricing }> | null = null;
      if (input.price) {
        ({ method, deposit } = checkMethod(deps.methods, input));
        const at = deps.clock.now();
        quoted = quotePrice(deps, method, deposit, input.price, at);
        // Reported inside the write, after the order lookup: a retried create still gets its intent.
        quoted.catch(() => {});
      } else {
        ({ method, amountMinor, deposit } = checkAmount(deps.methods, input as CreateIntentInput & { amount: number | string }));
      }
      const asked = input.price ? { priceAmount: checkPrice(input.price).text, priceCurrency: input.price.currency as Fiat } : null;
      // SQLite: one job of a group commit, answered once the group's transaction is durable.
      // The job may run twice (see IntentStore.write): it reports what it did instead of setting state.
      const { row, created } = await deps.store.write(async (w): Promise<{ row: ChosenIntent; created?: { payAmount: bigint; amounts: MethodAmounts } }> => {
        // Inside the write transaction, so concurrent identical creates see each other.
        const existing = await w.byOrder(merchant.clientId, input.order_id);
        if (existing) {
          if (!sameRequest(existing, method, amountMinor, asked as IntentPricing | null)) throw conflict(input.order_id);
          return { row: chosenIntent(existing) };
        }
        const q = quoted ? await quoted : null;
        const amount = q?.amountMinor ?? amountMinor!;
        const now = deps.clock.now();
        const id = deps.random.uuid();
        // A priced intent lives as long as its quote: a payment after valid_until is late, never re-priced.
        const expiresAt = q ? q.pricing.validUntil : now + deps.ttlSeconds * 1000;
        const payAmount = await reserveAmount(w, {
          method,
          amounts: deposit.amounts,
          amountMinor: amount,
          merchantId: merchant.clientId,
          intentId: id,
          reservedUntil: expiresAt + deps.amountReuseCooldownSeconds * 1000,
          now,
          decimals: decimalsOf(method),
        });
        const reference = deposit.method.newReference?.(deps.random) ?? null;
        const intent: ChosenIntent = {
          id,
          merchantId: merchant.clientId,
          orderId: input.order_id,
          method,
          amountMinor: amount,
          payAmountMinor: payAmount,
          receiver: deposit.amounts.receiver,
          reference,
          paymentUri: deposit.method.paymentUri({
            receiver: deposit.amounts.receiver,
            payAmountMinor: payAmount,
            orderId: input.order_id,
            payeeName: payeeShown(deposit.payeeName, merchant.name),
            reference: reference ?? undefined,
            token: deposit.token,
          }),
          status: 'pending',
          returnUrl: input.return_url ?? null,
          createdAt: now,
          expiresAt,
          transactionHash: null,
          verifiedAt: null,
          paymentId: null,
          updatedAt: now,
          canceledAt: null,
          pricing: q?.pricing ?? null,
          linkId: from?.linkId ?? null,
        };
        await w.insert(intent);
        return { row: intent, created: { payAmount, amounts: deposit.amounts } };
      });
      if (created) {
        metrics.intentCreated(method);
        notePoolUse(method, created.amounts, row.amountMinor, created.payAmount);
      }
      return createdView(row, ctx());
    },

    /** An intent of this merchant; anything else (malformed id, other merchant) is INTENT_NOT_FOUND. */
    getForMerchant(merchant: Merchant, intentId: string): Awaitable<IntentView> {
      return andThen(this.find(intentId), (intent) => {
        if (!intent || intent.merchantId !== merchant.clientId) throw notFound(intentId);
        // An intent without payments (most fetches) is answered without another read.
        if ((intent.paymentCount ?? 0) === 0 && intent.paymentId === null) return intentView(intent, ctx(), NO_MONEY);
        return fetchedView(deps.db, intent, ctx());
      });
    },

    /** The intent with this id (any spelling of the UUID), or undefined; synchronous on SQLite. */
    find(intentId: string): Awaitable<Intent | undefined> {
      if (!UUID_V4.test(intentId)) return undefined;
      return deps.store.byId(intentId.toLowerCase());
    },

    async get(intentId: string) {
      const intent = await this.find(intentId);
      if (!intent) throw notFound(intentId);
      return fetchedView(deps.db, intent, ctx());
    },

    /** Every merchant's intents, newest first (the CLI): the API list's filter rule. */
    async list(filter: { status?: string; currency?: string; limit?: number }) {
      const limit = filter.limit ?? 50;
      const rows = (await selectIntents(deps.db, undefined, { status: filter.status as IntentStatus | undefined, currency: filter.currency as Method | undefined, limit }, deps.clock.now()).execute()).slice(0, limit);
      const intents = rows.map(intentFromRow);
      const money = await moneyOf(deps.db, intents);
      return intents.map((i) => intentView(i, ctx(), money.get(i.id) ?? NO_MONEY));
    },

    /** Moves pending intents past expires_at to expired and emits intent.expired. Returns how many. */
    expireDue: (batch?: number) => expireDue({ db: deps.db, outbox: deps.outbox, metrics, ctx }, batch),
  };
}

const conflict = (orderId: string) =>
  new PaydError('ORDER_ID_CONFLICT', `order_id ${JSON.stringify(orderId)} already has an intent with a different amount or currency`);
const notFound = (id: string) => new PaydError('INTENT_NOT_FOUND', `no payment intent ${JSON.stringify(id)}`);

export type IntentService = ReturnType<typeof createIntentService>;
