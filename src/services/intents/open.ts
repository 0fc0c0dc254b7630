import type { IntentStore } from '../../db/intent-store.ts';
import { PaydError } from '../../domain/errors.ts';
import { asChoice, effectiveStatus, type Intent, type IntentChoice, type MethodLabels } from '../../domain/intent.ts';
import type { Method } from '../../domain/methods.ts';
import { formatMinor } from '../../domain/money.ts';
import { payeeShown } from '../../domain/payee.ts';
import type { Clock, Random } from '../../domain/ports.ts';
import type { Fiat } from '../../domain/rates.ts';
import type { Merchant } from '../merchants/index.ts';
import { checkPrice } from './checks.ts';
import type { FiatPrice, MethodDeposit, OpenIntentInput } from './inputs.ts';
import { quotePrice, type QuoteDeps } from './quote.ts';
import { reserveAmount } from './reserve.ts';

/**
 * How many methods one open intent may reserve a pay amount in. Each choice holds a unique
 * amount until the intent's reservation ends, so anonymous clicks on the checkout must not be
 * able to take more than this many amounts per intent; choosing a method again returns to its
 * reservation and costs nothing.
 */
export const MAX_OPEN_CHOICES = 3;

/** One method an open intent (or a payment link) can offer for a price, as the checkout shows it. */
export interface MethodOption {
  currency: Method;
  /** What payers call it: "UPI", "USDT", "USDC", "SOL". */
  group: string;
  /** The network as wallets name it ("TRON (TRC-20)", "Ethereum (ERC20)"); null: none to pick (UPI). */
  network: string | null;
  /** What it would cost now, decimal text in the method's unit (before its unique offset); null: no fresh rate. */
  amount: string | null;
  /** The method's unit ("INR", "USDT", "SOL"). */
  unit: string;
  /** The checkout's words for it. */
  label: string;
}

export interface OpenIntentDeps extends QuoteDeps {
  store: IntentStore;
  clock: Clock;
  random: Random;
  /** The enabled methods. */
  methods: Partial<Record<Method, MethodDeposit>>;
  amountReuseCooldownSeconds: number;
  labelsOf: (method: Method) => MethodLabels;
}

/** A fiat price as given: the INR `amount` of an open create is a price in INR. */
export function openPrice(input: Pick<OpenIntentInput, 'price' | 'amount'>): FiatPrice {
  return input.price ?? { amount: input.amount!, currency: 'INR' satisfies Fiat };
}

/**
 * The methods that can take this price now, in registry order: each enabled one of `offered`
 * ("all": every enabled method) whose quote succeeds and falls in its range. A method that
 * cannot price it (no fresh rate, out of range) is left out; the price itself is checked first.
 */
export async function methodOptions(deps: OpenIntentDeps, price: FiatPrice, offered: readonly string[] | 'all'): Promise<MethodOption[]> {
  checkPrice(price);
  const now = deps.clock.now();
  const ids = offered === 'all' ? (Object.keys(deps.methods) as Method[]) : offered;
  const out: MethodOption[] = [];
  for (const id of ids) {
    const deposit = Object.hasOwn(deps.methods, id) ? deps.methods[id as Method] : undefined;
    if (!deposit) continue;
    const quoted = await quotePrice(deps, id as Method, deposit, price, now).catch(() => null);
    if (!quoted) continue;
    const { rules, checkout } = deposit.method;
    out.push({ currency: id as Method, ...deps.labelsOf(id as Method), amount: formatMinor(quoted.amountMinor, rules.decimals), unit: rules.unit, label: checkout.label });
  }
  return out;
}

/**
 * The methods an open create asks for, checked: a list names enabled methods only (each must
 * price it now); "all" keeps every enabled method that can. Never empty.
 */
export async function offeredMethods(deps: OpenIntentDeps, price: FiatPrice, asked: readonly string[] | 'all'): Promise<Method[]> {
  if (asked !== 'all') {
    const unknown = asked.filter((m) => !Object.hasOwn(deps.methods, m));
    if (unknown.length > 0) {
      throw new PaydError('METHOD_UNSUPPORTED', `methods ${unknown.map((m) => JSON.stringify(m)).join(', ')} not enabled here; use some of: ${Object.keys(deps.methods).join(', ') || '(none enabled)'}`);
    }
    const now = deps.clock.now();
    // The merchant named them: one that cannot take the price is its error, not silently dropped.
    for (const m of asked) await quotePrice(deps, m as Method, deps.methods[m as Method]!, price, now);
    return [...new Set(asked)] as Method[];
  }
  const options = await methodOptions(deps, price, 'all');
  if (options.length === 0) throw new PaydError('METHOD_UNSUPPORTED', `no enabled method can take ${price.amount} ${price.currency} right now`);
  return options.map((o) => o.currency);
}

/**
 * The customer's choice of method on an open intent: reserves that method's unique pay amount
 * (held as long as the intent's other reservations) at a quote locked now, and makes it the
 * intent's method, amount and link. Choosing a method chosen before returns to its reservation.
 * Only while the intent is pending; at most MAX_OPEN_CHOICES methods per intent.
 */
export async function chooseMethod(deps: OpenIntentDeps, intentId: string, currency: string, merchant: Pick<Merchant, 'name'>): Promise<Intent> {
  // Quoted before the write: the rate book may read the database, which the write holds (SQLite's one connection).
  const seen = await deps.store.byId(intentId);
  const deposit = Object.hasOwn(deps.methods, currency) ? deps.methods[currency as Method] : undefined;
  const quoting =
    seen?.open && deposit && seen.open.methods.includes(currency as Method) && seen.open.choices.length < MAX_OPEN_CHOICES && !seen.open.choices.some((c) => c.method === currency)
      ? quotePrice(deps, currency as Method, deposit, seen.open.price, deps.clock.now())
      : undefined;
  // Reported inside the write, after the intent's own checks.
  quoting?.catch(() => {});
  return deps.store.write(async (w) => {
    const intent = await w.byId(intentId);
    if (!intent) throw new PaydError('INTENT_NOT_FOUND', `no payment intent ${JSON.stringify(intentId)}`);
    const open = intent.open;
    if (!open) throw new PaydError('CONFLICT', `intent ${intent.id} was created with its currency; there is no method to choose`);
    const now = deps.clock.now();
    const status = effectiveStatus(intent, now);
    if (status !== 'pending') throw new PaydError('CONFLICT', `intent ${intent.id} is ${status}; a method can be chosen only while it is pending`);
    const offered = open.methods.includes(currency as Method) ? (currency as Method) : undefined;
    if (!offered || !deposit) throw new PaydError('METHOD_UNSUPPORTED', `this payment offers ${open.methods.join(', ')}; ${JSON.stringify(currency)} is not one of them`);
    if (intent.method === offered) return intent;
    const before = open.choices.find((c) => c.method === offered);
    if (before) return w.choose({ ...asChoice(intent, before), updatedAt: now });
    if (open.choices.length >= MAX_OPEN_CHOICES) {
      throw new PaydError('CONFLICT', `this payment already reserved ${MAX_OPEN_CHOICES} methods (${open.choices.map((c) => c.method).join(', ')}); pick one of those`);
    }
    // Another request changed the intent between the read above and this write: the customer clicks again.
    if (!quoting) throw new PaydError('CONFLICT', `intent ${intent.id} changed meanwhile; choose again`);
    const quoted = await quoting;
    // The quote holds no longer than the intent: a payment after expires_at is late anyway.
    const pricing = { ...quoted.pricing, validUntil: Math.min(quoted.pricing.validUntil, intent.expiresAt) };
    const payAmount = await reserveAmount(w, {
      method: offered,
      amounts: deposit.amounts,
      amountMinor: quoted.amountMinor,
      merchantId: intent.merchantId,
      intentId: intent.id,
      reservedUntil: intent.expiresAt + deps.amountReuseCooldownSeconds * 1000,
      now,
      decimals: deposit.method.rules.decimals,
    });
    const reference = deposit.method.newReference?.(deps.random) ?? null;
    const choice: IntentChoice = {
      method: offered,
      amountMinor: quoted.amountMinor,
      payAmountMinor: payAmount,
      receiver: deposit.amounts.receiver,
      reference,
      paymentUri: deposit.method.paymentUri({
        receiver: deposit.amounts.receiver,
        payAmountMinor: payAmount,
        orderId: intent.orderId,
        payeeName: payeeShown(deposit.payeeName, merchant.name),
        reference: reference ?? undefined,
        token: deposit.token,
      }),
      pricing,
      chosenAt: now,
    };
    return w.choose({ ...asChoice({ ...intent, open: { ...open, choices: [...open.choices, choice] } }, choice), updatedAt: now });
  });
}
