import type { MethodAmounts } from '../config/load.ts';
import type { IntentStore, IntentWriter } from '../db/intent-store.ts';
import { andThen, type Awaitable } from '../domain/awaitable.ts';
import { writeTx, type Db } from '../db/open.ts';
import { intentFromRow } from '../db/intent-rows.ts';
import { base58Encode } from '../domain/base58.ts';
import { payeeShown } from '../domain/deposit.ts';
import { merchantShare, topOffsetSteps } from '../domain/amount-window.ts';
import { PaydError } from '../domain/errors.ts';
import { createdView, intentView, NO_MONEY, type Intent, type IntentStatus, type IntentView, type ViewContext } from '../domain/intent.ts';
import type { Method } from '../domain/methods.ts';
import { formatMinor, minorToDb, numberToDecimalText, parseDecimal } from '../domain/money.ts';
import { noopMetrics, type Clock, type Logger, type Metrics, type Random } from '../domain/ports.ts';
import type { MethodDescriptor } from '../methods/method.ts';
import type { MethodRegistry } from '../methods/registry.ts';
import type { Merchant } from './merchants.ts';
import { UUID_V4 } from './merchants.ts';
import type { Outbox } from './outbox.ts';
import { moneyOf, moneyOfOne } from './intent-money.ts';

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
  amount: number;
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
}

/** A create that had to search past this share of the unique-amount window logs a warning. */
const POOL_WARN_RATIO = 0.8;
const POOL_WARN_EVERY_MS = 60_000;

export function createIntentService(d: IntentServiceDeps) {
  const metrics = d.metrics ?? noopMetrics;
  const poolWarnedAt = new Map<string, number>();

  /** How full the window of pay amounts above this amount was: the share searched to find a free one. */
  function notePoolUse(method: Method, a: MethodAmounts, amountMinor: bigint, payAmount: bigint): void {
    const ratio = Number((payAmount - amountMinor) / a.stepMinor + 1n) / Number(topOffsetSteps(amountMinor, a) + 1n);
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
  function checkAmount(input: CreateIntentInput): { method: Method; amountMinor: bigint; deposit: MethodDeposit } {
    const method = input.currency;
    const deposit = Object.hasOwn(d.methods, method) ? d.methods[method] : undefined;
    if (!deposit) {
      throw new PaydError('METHOD_UNSUPPORTED', `currency ${JSON.stringify(method)} is not supported here; use one of: ${Object.keys(d.methods).join(', ') || '(none enabled)'}`);
    }
    const { decimals, unit } = deposit.method.rules;
    const parsed = parseDecimal(numberToDecimalText(input.amount), decimals);
    if (!parsed.ok) {
      throw new PaydError('INVALID_REQUEST', `amount has more than ${decimals} decimal places for ${method}`, {
        errors: [{ field: 'amount', message: `at most ${decimals} decimal places` }],
      });
    }
    const { minMinor } = deposit.amounts;
    // Without a configured maximum, the storable range (with headroom for offsets) is the limit.
    const maxMinor = deposit.amounts.maxMinor ?? MAX_STORABLE_MINOR;
    if ((minMinor !== null && parsed.minor < minMinor) || parsed.minor > maxMinor) {
      const range = [minMinor !== null ? `at least ${formatMinor(minMinor, decimals)}` : '', maxMinor !== null ? `at most ${formatMinor(maxMinor, decimals)}` : ''];
      throw new PaydError('AMOUNT_OUT_OF_RANGE', `amount must be ${range.filter(Boolean).join(' and ')} ${unit} for ${method}`);
    }
    return { method, amountMinor: parsed.minor, deposit };
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
    const slot = { ...scope, step: minorToDb(a.stepMinor), intentId, reservedUntil };
    let from = price;
    if (a.merchantSharePercent < 100) {
      // The share counts only once the price itself is taken.
      if ((await w.reserveFirst({ ...slot, from: price, to: price })) !== null) return amountMinor;
      const found = await w.held({ ...scope, merchantId, from: price, to: last });
      if (found.byMerchant >= merchantShare(top, a.merchantSharePercent)) {
        return unavailable(`this shop already holds ${found.byMerchant} of the ${top + 1n} pay amounts near ${formatMinor(amountMinor, decimalsOf(method))} ${method} (its share: ${a.merchantSharePercent} %)`);
      }
      from = price + slot.step;
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

  function sameRequest(intent: Intent, method: Method, amountMinor: bigint): boolean {
    return intent.method === method && intent.amountMinor === amountMinor;
  }

  return {
    async create(merchant: Merchant, input: CreateIntentInput) {
      const { method, amountMinor, deposit } = checkAmount(input);
      // SQLite: one savepoint in a group commit, answered once the group's transaction is durable.
      // The job may run twice (see IntentStore.write): it reports what it did instead of setting state.
      const { row, created } = await d.store.write(async (w): Promise<{ row: Intent; created?: { payAmount: bigint; amounts: MethodAmounts } }> => {
        // Inside the write transaction, so concurrent identical creates see each other.
        const existing = await w.byOrder(merchant.clientId, input.order_id);
        if (existing) {
          if (!sameRequest(existing, method, amountMinor)) throw conflict(input.order_id);
          return { row: existing };
        }
        const now = d.clock.now();
        const id = d.random.uuid();
        const expiresAt = now + d.ttlSeconds * 1000;
        const payAmount = await reserveAmount(w, merchant.clientId, method, deposit.amounts, amountMinor, id, expiresAt + d.amountReuseCooldownSeconds * 1000, now);
        const reference = deposit.method.needsReference ? newReference() : null;
        const intent: Intent = {
          id,
          merchantId: merchant.clientId,
          orderId: input.order_id,
          method,
          amountMinor,
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
        };
        await w.insert(intent);
        return { row: intent, created: { payAmount, amounts: deposit.amounts } };
      });
      if (created) {
        metrics.intentCreated(method);
        notePoolUse(method, created.amounts, amountMinor, created.payAmount);
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

    async list(filter: { status?: string; currency?: string; limit?: number }) {
      let q = d.db.selectFrom('intents').selectAll().orderBy('created_at', 'desc').limit(filter.limit ?? 50);
      const now = d.clock.now();
      if (filter.status === 'pending') q = q.where('status', '=', 'pending').where('expires_at', '>', now);
      else if (filter.status === 'expired') q = q.where((eb) => eb.or([eb('status', '=', 'expired'), eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', now)])]));
      else if (filter.status) q = q.where('status', '=', filter.status as IntentStatus);
      if (filter.currency) q = q.where('method', '=', filter.currency);
      const intents = (await q.execute()).map(intentFromRow);
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
