import type { MethodAmounts } from '../config/load.ts';
import type { IntentStore, IntentWriter } from '../db/intent-store.ts';
import { andThen, type Awaitable } from '../domain/awaitable.ts';
import { writeTx, type Db } from '../db/open.ts';
import { intentFromRow } from '../db/intent-rows.ts';
import { base58Encode } from '../domain/base58.ts';
import { payeeShown } from '../domain/deposit.ts';
import { isRoundAmount, merchantShare, roundOffsets, topOffsetSteps, windowCapacity } from '../domain/amount-window.ts';
import { PaydError } from '../domain/errors.ts';
import { createdView, intentView, NO_MONEY, type Intent, type IntentStatus, type IntentView, type ViewContext } from '../domain/intent.ts';
import type { Method } from '../domain/methods.ts';
import { formatMinor, minorToDb, numberToDecimalText, parseDecimal } from '../domain/money.ts';
import { noopMetrics, type Clock, type Logger, type Metrics, type Random } from '../domain/ports.ts';
import type { MethodDescriptor } from '../methods/method.ts';
import type { MethodRegistry } from '../methods/registry.ts';
import type { Merchant } from './merchants.ts';
import { UUID_V4 } from '../domain/ids.ts';
import { selectIntents } from './intent-list.ts';
import type { Outbox } from './outbox.ts';
import { moneyOf, moneyOfOne } from './intent-money.ts';
import type { RateBook } from '../pricing/book.ts';
import { convertPrice, FIAT_CODES, FIATS, formatRate, isFiat, ratioToRate, type Fiat } from '../domain/rates.ts';
import type { IntentPricing } from '../domain/intent.ts';

/** What the composition root knows about each enabled method. */
export interface MethodDeposit {
  /** What the method is: its money rules, payment link and whether it needs a reference. */
  method: MethodDescriptor;
  amounts: MethodAmounts;
  payeeName: string;
  /** Token id: TRC20 contract or SPL mint. */
  token?: string;
}

const MAX_STORABLE_MINOR = 2n ** 52n;

export interface CreateIntentInput {
  /** In the method's currency; exactly one of amount and price (http/validate.ts checks). */
  amount?: number;
  /** A fiat price converted at a locked quote (issue #31). */
  price?: { amount: number; currency: string };
  currency: string;
  order_id: string;
  return_url?: string;
}

export interface IntentServiceDeps {
  db: Db;
  /** Prepared statements and group commit for create and fetch. */
  store: IntentStore;
  clock: Clock;
  random: Random;
  /** The enabled methods. */
  methods: Partial<Record<Method, MethodDeposit>>;
  /** Every method payd knows (an intent of a method since disabled still reads in its decimals). */
  registry: MethodRegistry;
  ttlSeconds: number;
  amountReuseCooldownSeconds: number;
  livemode: boolean;
  publicUrl: string;
  outbox: Outbox;
  metrics?: Metrics;
  /** Warnings (an amount pool nearly full); default: none. */
  log?: Logger;
  /** Fiat prices: the rate cache and how long a quote holds (default and cap: ttlSeconds). */
  pricing?: { book: Pick<RateBook, 'quote'>; quoteSeconds?: number; retryAfterSeconds: number };
}

/** A create that had to search past this share of the unique-amount window logs a warning. */
const POOL_WARN_RATIO = 0.8;
const POOL_WARN_EVERY_MS = 60_000;

export function createIntentService(d: IntentServiceDeps) {
  const metrics = d.metrics ?? noopMetrics;
  const poolWarnedAt = new Map<string, number>();

  /** How full the window of pay amounts above this amount was: the share of its amounts (whole ones never count) searched to find a free one. */
  function notePoolUse(method: Method, a: MethodAmounts, amountMinor: bigint, payAmount: bigint): void {
    const k = (payAmount - amountMinor) / a.stepMinor;
    const ratio = Number(k + 1n - roundOffsets(amountMinor, k, a)) / Number(windowCapacity(amountMinor, a));
    metrics.amountPoolUse(method, a.receiver, ratio);
    if (ratio <= POOL_WARN_RATIO || !d.log) return;
    const key = `${method}:${a.receiver}`;
    const now = d.clock.now();
    if (now - (poolWarnedAt.get(key) ?? -Infinity) < POOL_WARN_EVERY_MS) return;
    poolWarnedAt.set(key, now);
    d.log.warn('amount pool over 80 % full: raise maxSurchargePercent or maxOffsetSteps, or shorten amountReuseCooldownSeconds', {
      method,
      receiver: a.receiver,
      amount_minor: amountMinor.toString(),
      used_ratio: Math.round(ratio * 100) / 100,
    });
  }

  const decimalsOf = (method: Method): number => d.registry.of(method).rules.decimals;
  const ctx = (): ViewContext => ({ now: d.clock.now(), livemode: d.livemode, publicUrl: d.publicUrl, decimalsOf });

  /** Business rules in DESIGN §8 order: method → decimals → range. */
  function checkMethod(input: CreateIntentInput): { method: Method; deposit: MethodDeposit } {
    const method = input.currency;
    const deposit = Object.hasOwn(d.methods, method) ? d.methods[method] : undefined;
    if (!deposit) {
      throw new PaydError('METHOD_UNSUPPORTED', `currency ${JSON.stringify(method)} is not supported here; use one of: ${Object.keys(d.methods).join(', ') || '(none enabled)'}`);
    }
    return { method, deposit };
  }

  function checkRange(method: Method, deposit: MethodDeposit, amountMinor: bigint, priced: boolean): void {
    const { decimals, unit } = deposit.method.rules;
    const { minMinor } = deposit.amounts;
    // Without a configured maximum, the storable range (with headroom for offsets) is the limit.
    const maxMinor = deposit.amounts.maxMinor ?? MAX_STORABLE_MINOR;
    if ((minMinor !== null && amountMinor < minMinor) || amountMinor > maxMinor) {
      const range = [minMinor !== null ? `at least ${formatMinor(minMinor, decimals)}` : '', maxMinor !== null ? `at most ${formatMinor(maxMinor, decimals)}` : ''];
      const what = priced ? `the price converts to ${formatMinor(amountMinor, decimals)} ${unit}; it` : 'amount';
      throw new PaydError('AMOUNT_OUT_OF_RANGE', `${what} must be ${range.filter(Boolean).join(' and ')} ${unit} for ${method}`);
    }
  }

  function checkAmount(input: CreateIntentInput & { amount: number }): { method: Method; amountMinor: bigint; deposit: MethodDeposit } {
    const { method, deposit } = checkMethod(input);
    const { decimals } = deposit.method.rules;
    const parsed = parseDecimal(numberToDecimalText(input.amount), decimals);
    if (!parsed.ok) {
      throw new PaydError('INVALID_REQUEST', `amount has more than ${decimals} decimal places for ${method}`, {
        errors: [{ field: 'amount', message: `at most ${decimals} decimal places` }],
      });
    }
    checkRange(method, deposit, parsed.minor, false);
    return { method, amountMinor: parsed.minor, deposit };
  }

  /** A fiat price: its currency and minor units (shape and decimals), checked before any rate is looked at. */
  function checkPrice(price: { amount: number; currency: string }): { fiat: Fiat; priceMinor: bigint; text: string } {
    if (!isFiat(price.currency)) {
      throw new PaydError('INVALID_REQUEST', `price.currency must be one of ${FIAT_CODES.join(', ')}`, { errors: [{ field: 'price.currency', message: `one of ${FIAT_CODES.join(', ')}` }] });
    }
    const { decimals } = FIATS[price.currency];
    const text = numberToDecimalText(price.amount);
    const parsed = parseDecimal(text, decimals);
    if (!parsed.ok) {
      throw new PaydError('INVALID_REQUEST', `price.amount has more than ${decimals} decimal places for ${price.currency}`, { errors: [{ field: 'price.amount', message: `at most ${decimals} decimal places` }] });
    }
    return { fiat: price.currency, priceMinor: parsed.minor, text: formatMinor(parsed.minor, decimals) };
  }

  /**
   * The price converted at the freshest trusted rate, rounded up to the method's amount step
   * (domain/rates.ts convertPrice); the quote holds for pricing.quoteSeconds, at most the
   * intent's lifetime. No fresh rate: RATE_UNAVAILABLE, never a stale or made-up one.
   */
  async function quotePrice(method: Method, deposit: MethodDeposit, price: { amount: number; currency: string }, now: number): Promise<{ amountMinor: bigint; pricing: IntentPricing }> {
    const { fiat, priceMinor, text } = checkPrice(price);
    const { unit, decimals } = deposit.method.rules;
    const rate = await (d.pricing?.book.quote(unit, fiat) ?? (unit === fiat ? Promise.resolve({ rate: { num: 1n, den: 1n }, source: 'identity', at: now }) : undefined));
    if (!rate) {
      const retryAfter = d.pricing?.retryAfterSeconds ?? 60;
      throw new PaydError('RATE_UNAVAILABLE', `no fresh ${unit}/${fiat} rate right now; retry in ${retryAfter} s (Retry-After) or price in ${unit}`, { retryAfter });
    }
    const amountMinor = convertPrice(priceMinor, FIATS[fiat].decimals, rate.rate, decimals, deposit.amounts.stepMinor);
    checkRange(method, deposit, amountMinor, true);
    const quoteSeconds = Math.min(d.pricing?.quoteSeconds ?? d.ttlSeconds, d.ttlSeconds);
    return { amountMinor, pricing: { priceAmount: text, priceCurrency: fiat, rate: formatRate(ratioToRate(rate.rate)), source: rate.source, quotedAt: now, validUntil: now + Math.round(quoteSeconds * 1000) } };
  }

  /**
   * Smallest free pay_amount in the window (domain/amount-window.ts), taken by the store in as
   * few statements as it can (IntentWriter.reserveFirst): an upsert that re-checks the hold, so
   * a concurrent create (PostgreSQL) that took an amount first only moves us to the next.
   * Nothing is released early: an amount stays held until expires_at + cooldown, canceled or not.
   * Under pressure (the price itself taken), one merchant's intents may hold at most its share of
   * the window, so one shop's flood of creates cannot lock a price for every shop on the receiver.
   */
  async function reserveAmount(w: IntentWriter, merchantId: string, method: Method, a: MethodAmounts, amountMinor: bigint, intentId: string, reservedUntil: number, now: number): Promise<bigint> {
    const scope = { method, receiver: a.receiver, now };
    const top = topOffsetSteps(amountMinor, a);
    const price = minorToDb(amountMinor);
    const last = minorToDb(amountMinor + top * a.stepMinor);
    // Whole amounts (₹499.00) are skipped: a payer rounding down never matches another intent exactly.
    const slot = { ...scope, step: minorToDb(a.stepMinor), skipMultiplesOf: a.roundUnitMinor === null ? 0 : minorToDb(a.roundUnitMinor), intentId, reservedUntil };
    let from = price;
    if (a.merchantSharePercent < 100) {
      // The share counts only once the first amount (the price itself, or the next when the price is whole) is taken.
      const first = isRoundAmount(amountMinor, a) ? price + slot.step : price;
      if (first <= last && (await w.reserveFirst({ ...slot, from: first, to: first })) !== null) return BigInt(first);
      const found = await w.held({ ...scope, merchantId, from: price, to: last });
      const capacity = windowCapacity(amountMinor, a);
      if (found.byMerchant >= merchantShare(capacity, a.merchantSharePercent)) {
        return unavailable(`this shop already holds ${found.byMerchant} of the ${capacity} pay amounts near ${formatMinor(amountMinor, decimalsOf(method))} ${method} (its share: ${a.merchantSharePercent} %)`);
      }
      from = first + slot.step;
    }
    const taken = from <= last ? await w.reserveFirst({ ...slot, from, to: last }) : null;
    if (taken !== null) return BigInt(taken);
    return unavailable(`no unique pay amount is free near ${formatMinor(amountMinor, decimalsOf(method))} ${method}`);

    /** Retry-After: when the first amount of the window frees up (one being reserved by a concurrent create: soon). */
    async function unavailable(why: string): Promise<never> {
      const soonest = await w.soonestRelease({ method, receiver: a.receiver, fromMinor: price, toMinor: last });
      const retryAfter = Math.max(1, Math.ceil(((soonest ?? now) - now) / 1000));
      throw new PaydError('AMOUNT_UNAVAILABLE', `${why}; the first is free again in ${retryAfter} s (Retry-After), or ask for another amount`, { retryAfter });
    }
  }

  function newReference(): string {
    // Solana Pay reference: any 32 bytes as a base58 public key, fresh per intent.
    return base58Encode(d.random.bytes(32));
  }

  /** A retried create: same method and the same amount, or the same price (the rate may have moved since). */
  function sameRequest(intent: Intent, method: Method, amountMinor: bigint | null, price: IntentPricing | null): boolean {
    if (intent.method !== method) return false;
    if (price) return intent.pricing?.priceCurrency === price.priceCurrency && intent.pricing.priceAmount === price.priceAmount;
    return intent.pricing === null && intent.amountMinor === amountMinor;
  }

  return {
    async create(merchant: Merchant, input: CreateIntentInput) {
      let method: Method, deposit: MethodDeposit;
      let amountMinor: bigint | null = null;
      let quoted: Promise<{ amountMinor: bigint; pricing: IntentPricing }> | null = null;
      if (input.price) {
        ({ method, deposit } = checkMethod(input));
        const at = d.clock.now();
        quoted = quotePrice(method, deposit, input.price, at);
        // Reported inside the write, after the order lookup: a retried create still gets its intent.
        quoted.catch(() => {});
      } else {
        ({ method, amountMinor, deposit } = checkAmount(input as CreateIntentInput & { amount: number }));
      }
      const asked = input.price ? { priceAmount: checkPrice(input.price).text, priceCurrency: input.price.currency as Fiat } : null;
      // SQLite: one savepoint in a group commit, answered once the group's transaction is durable.
      // The job may run twice (see IntentStore.write): it reports what it did instead of setting state.
      const { row, created } = await d.store.write(async (w): Promise<{ row: Intent; created?: { payAmount: bigint; amounts: MethodAmounts } }> => {
        // Inside the write transaction, so concurrent identical creates see each other.
        const existing = await w.byOrder(merchant.clientId, input.order_id);
        if (existing) {
          if (!sameRequest(existing, method, amountMinor, asked as IntentPricing | null)) throw conflict(input.order_id);
          return { row: existing };
        }
        const q = quoted ? await quoted : null;
        const amount = q?.amountMinor ?? amountMinor!;
        const now = d.clock.now();
        const id = d.random.uuid();
        // A priced intent lives as long as its quote: a payment after valid_until is late, never re-priced.
        const expiresAt = q ? q.pricing.validUntil : now + d.ttlSeconds * 1000;
        const payAmount = await reserveAmount(w, merchant.clientId, method, deposit.amounts, amount, id, expiresAt + d.amountReuseCooldownSeconds * 1000, now);
        const reference = deposit.method.needsReference ? newReference() : null;
        const intent: Intent = {
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
        return moneyOfOne(d.db, intent).then((money) => intentView(intent, ctx(), money));
      });
    },

    /** The intent with this id (any spelling of the UUID), or undefined; synchronous on SQLite. */
    find(intentId: string): Awaitable<Intent | undefined> {
      if (!UUID_V4.test(intentId)) return undefined;
      return d.store.byId(intentId.toLowerCase());
    },

    async get(intentId: string) {
      const intent = await this.find(intentId);
      if (!intent) throw notFound(intentId);
      return intentView(intent, ctx(), await moneyOfOne(d.db, intent));
    },

    /** Every merchant's intents, newest first (the CLI): the API list's filter rule. */
    async list(filter: { status?: string; currency?: string; limit?: number }) {
      const limit = filter.limit ?? 50;
      const rows = (await selectIntents(d.db, undefined, { status: filter.status as IntentStatus | undefined, currency: filter.currency as Method | undefined, limit }, d.clock.now()).execute()).slice(0, limit);
      const intents = rows.map(intentFromRow);
      const money = await moneyOf(d.db, intents);
      return intents.map((i) => intentView(i, ctx(), money.get(i.id) ?? NO_MONEY));
    },

    /** Moves pending intents past expires_at to expired and emits intent.expired. Returns how many. */
    async expireDue(batch = 500): Promise<number> {
      let total = 0;
      for (;;) {
        const { n, methods } = await writeTx(d.db, async (tx) => {
          const now = d.clock.now();
          const rows = await tx.selectFrom('intents').selectAll().where('status', '=', 'pending').where('expires_at', '<=', now).limit(batch).execute();
          const methods: Method[] = [];
          for (const intent of rows.map(intentFromRow)) {
            const upd = await tx.updateTable('intents').set({ status: 'expired', updated_at: now }).where('id', '=', intent.id).where('status', '=', 'pending').executeTakeFirst();
            if (Number(upd.numUpdatedRows) === 0) continue;
            await d.outbox.enqueue(tx, intent.merchantId, intent.id, 'intent.expired', intentView({ ...intent, status: 'expired', updatedAt: now }, { ...ctx(), now }, await moneyOfOne(tx, intent)));
            methods.push(intent.method);
          }
          return { n: rows.length, methods };
        });
        // Counted once committed.
        for (const method of methods) metrics.intentExpired(method);
        total += n;
        if (n < batch) break;
      }
      if (total > 0) d.outbox.notify();
      return total;
    },
  };
}

const conflict = (orderId: string) =>
  new PaydError('ORDER_ID_CONFLICT', `order_id ${JSON.stringify(orderId)} already has an intent with a different amount or currency`);
const notFound = (id: string) => new PaydError('INTENT_NOT_FOUND', `no payment intent ${JSON.stringify(id)}`);

export type IntentService = ReturnType<typeof createIntentService>;
