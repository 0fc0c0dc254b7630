import * as v from 'valibot';
import { PaydError } from '../domain/errors.ts';
import type { CreateIntentInput } from '../services/intents/deposit.ts';

/** Control characters would corrupt logs and UPI deep links. */
const printable = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);

const positive = (field: string) => v.pipe(v.number(`${field} must be a number`), v.finite(`${field} must be a finite number`), v.gtValue(0, `${field} must be greater than 0`));

/** An amount a JSON number cannot carry exactly (18 decimals), as decimal text: "12.345678901234567891". */
const decimalText = (field: string) =>
  v.pipe(
    v.string(`${field} must be a number or a decimal string`),
    v.regex(/^\d{1,40}(\.\d{1,40})?$/, `${field} must be a plain decimal such as "12.5" (digits, one optional point)`),
    v.check((s) => /[1-9]/.test(s), `${field} must be greater than 0`),
  );

export const CreateBody = v.object({
  amount: v.optional(
    v.pipe(
      v.union([positive('amount'), decimalText('amount')], 'amount must be a number or a decimal string'),
      v.description("In the method's currency (currency). Give either amount or price, not both. A JSON number, or a decimal string for an amount a number cannot carry exactly (\"12.345678901234567891\")."),
    ),
  ),
  price: v.optional(
    v.pipe(
      v.strictObject(
        {
          amount: positive('price.amount'),
          currency: v.pipe(v.string('price.currency must be a string'), v.description('ISO 4217: INR, USD or EUR.')),
        },
        'price has an unknown field',
      ),
      v.description("A price in fiat instead of amount: payd converts it to the method's currency at a locked quote (rounded up to the method's amount step)."),
    ),
  ),
  // The API document lists the methods this payd knows (openapi/document.ts); one not enabled here is METHOD_UNSUPPORTED.
  currency: v.pipe(v.string('currency must be a string'), v.description('The payment method; one not enabled on this payd is refused with METHOD_UNSUPPORTED.')),
  order_id: v.pipe(
    v.string('order_id must be a string'),
    v.minLength(1, 'order_id must not be empty'),
    v.maxLength(128, 'order_id must be at most 128 characters'),
    v.check(printable, 'order_id must not contain control characters'),
  ),
  return_url: v.optional(
    v.pipe(
      v.string('return_url must be a string'),
      v.maxLength(2048, 'return_url must be at most 2048 characters'),
      v.check((s) => {
        try {
          const u = new URL(s);
          return u.protocol === 'https:' || u.protocol === 'http:';
        } catch {
          return false;
        }
      }, 'return_url must be an http(s) URL'),
    ),
  ),
});

/** Shape checks only (INVALID_REQUEST); business rules follow in the intent service. */
export function parseCreateBody(body: unknown): CreateIntentInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new PaydError('INVALID_REQUEST', 'request body must be a JSON object', { errors: [{ field: '(body)', message: 'request body must be a JSON object' }] });
  const r = v.safeParse(CreateBody, body);
  if (r.success) {
    const both = r.output.amount !== undefined && r.output.price !== undefined;
    if (both || (r.output.amount === undefined && r.output.price === undefined)) {
      const message = both ? 'give either amount or price, not both' : 'amount (or price) is required';
      throw new PaydError('INVALID_REQUEST', message, { errors: [{ field: 'amount', message }] });
    }
    return r.output;
  }
  const errors = r.issues.map((i) => {
    const field = v.getDotPath(i) ?? '(body)';
    return { field, message: i.input === undefined ? `${field} is required` : i.message };
  });
  throw new PaydError('INVALID_REQUEST', errors.map((e) => e.message).join('; '), { errors });
}
