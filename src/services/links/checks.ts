import { PaydError } from '../../domain/errors.ts';
import { unshowableChar } from '../../domain/display-text.ts';
import { formatMinor, numberToDecimalText, parseDecimal } from '../../domain/money.ts';
import { FIAT_CODES, FIATS, isFiat, type Fiat } from '../../domain/rates.ts';

/** What a merchant asks for when creating a link (API body, CLI flags, console form, bot command). */
export interface LinkInput {
  title: string;
  /** A fixed price in a fiat (INR, USD, EUR): the customer pays it in the method they choose. */
  price?: { amount: number | string; currency: string };
  /** The customer enters the amount, in this fiat, between min and max. */
  customerAmount?: { min: number | string; max: number | string; currency: string };
  /** Only these methods are offered; absent: every enabled method. */
  methods?: readonly string[];
  /** The link takes one paid intent, then says it is used. */
  singleUse?: boolean;
  /** Epoch ms after which the link takes nothing. */
  expiresAt?: number;
}

/**
 * A link's amounts stay far inside a JSON number's exact range, so a price handed on to the intent's
 * create (a number) is the one the merchant wrote: 10^12 in a fiat of 2 decimals is 10^14 minor units.
 */
export const MAX_LINK_AMOUNT_MINOR = 10n ** 14n;
export const TITLE_MAX = 100;

const invalid = (field: string, message: string) => new PaydError('INVALID_REQUEST', `${field}: ${message}`, { errors: [{ field, message }] });

export function checkTitle(title: string): string {
  const t = title.trim();
  if (t.length === 0) throw invalid('title', 'must not be empty');
  if (t.length > TITLE_MAX) throw invalid('title', `must be at most ${TITLE_MAX} characters`);
  const bad = unshowableChar(t);
  if (bad !== undefined) throw invalid('title', `must not contain ${bad} (a control, line-break or text-direction character)`);
  return t;
}

export function checkFiat(field: string, currency: string): Fiat {
  if (!isFiat(currency)) throw invalid(field, `must be one of ${FIAT_CODES.join(', ')}`);
  return currency;
}

/** A positive amount of `fiat` as its canonical decimal text ("499" → "499.00"'s minor units formatted plainly). */
export function fiatAmount(field: string, value: number | string, fiat: Fiat): { minor: bigint; text: string } {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? numberToDecimalText(value) : '') : value.trim();
  const { decimals } = FIATS[fiat];
  const parsed = /^\d{1,20}(\.\d{1,20})?$/.test(text) ? parseDecimal(text, decimals) : ({ ok: false, reason: 'format' } as const);
  if (!parsed.ok) throw invalid(field, parsed.reason === 'precision' ? `at most ${decimals} decimal places for ${fiat}` : 'must be a plain decimal such as 499 or 12.50');
  if (parsed.minor <= 0n) throw invalid(field, 'must be greater than 0');
  if (parsed.minor > MAX_LINK_AMOUNT_MINOR) throw invalid(field, `must be at most ${formatMinor(MAX_LINK_AMOUNT_MINOR, decimals)} ${fiat}`);
  return { minor: parsed.minor, text: formatMinor(parsed.minor, decimals) };
}

/** The amount a customer typed on a customer-entered link, checked against its bounds. */
export function enteredAmount(value: string, bounds: { min: string; max: string; currency: Fiat }): string {
  const { decimals } = FIATS[bounds.currency];
  const amount = fiatAmount('amount', value, bounds.currency);
  const min = parseDecimal(bounds.min, decimals);
  const max = parseDecimal(bounds.max, decimals);
  if ((min.ok && amount.minor < min.minor) || (max.ok && amount.minor > max.minor)) {
    throw invalid('amount', `must be between ${bounds.min} and ${bounds.max} ${bounds.currency}`);
  }
  return amount.text;
}
