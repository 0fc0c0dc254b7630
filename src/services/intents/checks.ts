import { PaydError } from '../../domain/errors.ts';
import type { Method } from '../../domain/methods.ts';
import { formatMinor, MAX_MINOR, numberToDecimalText, parseDecimal } from '../../domain/money.ts';
import { FIAT_CODES, FIATS, isFiat, type Fiat } from '../../domain/rates.ts';
import type { CreateIntentInput, FiatPrice, MethodDeposit } from './inputs.ts';

/** The business rules of a create, in this order: method → decimals → range. */

type Deposits = Partial<Record<Method, MethodDeposit>>;

export function checkMethod(methods: Deposits, input: CreateIntentInput): { method: Method; deposit: MethodDeposit } {
  const method = input.currency;
  const deposit = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (!deposit) {
    throw new PaydError('METHOD_UNSUPPORTED', `currency ${JSON.stringify(method)} is not supported here; use one of: ${Object.keys(methods).join(', ') || '(none enabled)'}`);
  }
  return { method, deposit };
}

export function checkRange(method: Method, deposit: MethodDeposit, amountMinor: bigint, priced: boolean): void {
  const { decimals, unit } = deposit.method.rules;
  const { minMinor } = deposit.amounts;
  // Without a configured maximum, the one range every amount keeps (the stores leave room for offsets above it).
  const maxMinor = deposit.amounts.maxMinor ?? MAX_MINOR;
  if ((minMinor !== null && amountMinor < minMinor) || amountMinor > maxMinor) {
    const range = [minMinor !== null ? `at least ${formatMinor(minMinor, decimals)}` : '', maxMinor !== null ? `at most ${formatMinor(maxMinor, decimals)}` : ''];
    const what = priced ? `the price converts to ${formatMinor(amountMinor, decimals)} ${unit}; it` : 'amount';
    throw new PaydError('AMOUNT_OUT_OF_RANGE', `${what} must be ${range.filter(Boolean).join(' and ')} ${unit} for ${method}`);
  }
}

export function checkAmount(methods: Deposits, input: CreateIntentInput & { amount: number | string }): { method: Method; amountMinor: bigint; deposit: MethodDeposit } {
  const { method, deposit } = checkMethod(methods, input);
  const { decimals } = deposit.method.rules;
  const parsed = parseDecimal(typeof input.amount === 'string' ? input.amount : numberToDecimalText(input.amount), decimals);
  if (!parsed.ok) {
    throw new PaydError('INVALID_REQUEST', `amount has more than ${decimals} decimal places for ${method}`, {
      errors: [{ field: 'amount', message: `at most ${decimals} decimal places` }],
    });
  }
  checkRange(method, deposit, parsed.minor, false);
  return { method, amountMinor: parsed.minor, deposit };
}

/** A fiat price: its currency and minor units (shape and decimals), checked before any rate is looked at. */
export function checkPrice(price: FiatPrice): { fiat: Fiat; priceMinor: bigint; text: string } {
  if (!isFiat(price.currency)) {
    throw new PaydError('INVALID_REQUEST', `price.currency must be one of ${FIAT_CODES.join(', ')}`, { errors: [{ field: 'price.currency', message: `one of ${FIAT_CODES.join(', ')}` }] });
  }
  const { decimals } = FIATS[price.currency];
  const text = typeof price.amount === 'string' ? price.amount : numberToDecimalText(price.amount);
  const parsed = parseDecimal(text, decimals);
  if (!parsed.ok) {
    throw new PaydError('INVALID_REQUEST', `price.amount has more than ${decimals} decimal places for ${price.currency}`, { errors: [{ field: 'price.amount', message: `at most ${decimals} decimal places` }] });
  }
  return { fiat: price.currency, priceMinor: parsed.minor, text: formatMinor(parsed.minor, decimals) };
}
