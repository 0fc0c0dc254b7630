import type { H3 } from 'h3';
import * as v from 'valibot';
import { andThen } from '../../domain/awaitable.ts';
import { unshowableChar } from '../../domain/display-text.ts';
import { PaydError } from '../../domain/errors.ts';
import type { IntentService } from '../../services/intents/index.ts';
import type { CreateIntentInput, OpenIntentInput } from '../../services/intents/inputs.ts';
import type { IntentCancellation } from '../../services/intents/cancel.ts';
import type { IntentListing } from '../../services/intents/list.ts';
import type { HeldPayments } from '../../services/held-payments.ts';
import { readJsonBody } from '../body.ts';
import { jsonReply } from '../errors.ts';
import { pageLimit, parseQuery } from '../parse.ts';
import type { RouteKit } from './kit.ts';

// The intent resource: its request schemas (the OpenAPI document is derived from them) and its routes.

/** A string shown to people as it is stored (domain/display-text.ts); the message names the character. */
const showable = (field: string) =>
  v.check<string, (issue: v.CheckIssue<string>) => string>(
    (s) => unshowableChar(s) === undefined,
    (issue) => `${field} must not contain ${unshowableChar(String(issue.input))} (a control, line-break or text-direction character)`,
  );

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
          amount: v.pipe(
            v.union([positive('price.amount'), decimalText('price.amount')], 'price.amount must be a number or a decimal string'),
            v.description('A JSON number, or a decimal string ("1234.57") that no float rounding touches; at most the currency\'s decimals (2).'),
          ),
          currency: v.pipe(v.string('price.currency must be a string'), v.description('ISO 4217: INR, USD or EUR.')),
        },
        'price has an unknown field',
      ),
      v.description("A price in fiat instead of amount: payd converts it to the method's currency at a locked quote (rounded up to the method's amount step)."),
    ),
  ),
  // The API document lists the methods this payd knows (openapi/document.ts); one not enabled here is METHOD_UNSUPPORTED.
  currency: v.optional(
    v.pipe(
      v.string('currency must be a string'),
      v.description('The payment method; one not enabled on this payd is refused with METHOD_UNSUPPORTED. Required unless `methods` asks for an open intent.'),
    ),
  ),
  methods: v.optional(
    v.pipe(
      v.union(
        [
          v.literal('all'),
          v.pipe(
            v.array(v.string('methods must list method ids'), 'methods must be "all" or a list of methods'),
            v.minLength(1, 'methods must not be empty'),
            v.maxLength(64, 'methods must list at most 64 methods'),
          ),
        ],
        'methods must be "all" or a list of methods',
      ),
      v.description(
        'An open intent instead of `currency`: the customer picks one of these methods on the checkout ("all": every enabled method that can take the price). Needs `price`, or `amount` in INR. The intent starts with `currency: null` and its `options`.',
      ),
    ),
  ),
  order_id: v.pipe(
    v.string('order_id must be a string'),
    v.minLength(1, 'order_id must not be empty'),
    v.maxLength(128, 'order_id must be at most 128 characters'),
    showable('order_id'),
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

/** A create's request: a method named (`currency`), or an open intent (`methods`). */
export type CreateRequest = { open: false; input: CreateIntentInput } | { open: true; input: OpenIntentInput };

/** Shape checks only (INVALID_REQUEST); business rules follow in the intent service. */
export function parseCreateRequest(body: unknown): CreateRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new PaydError('INVALID_REQUEST', 'request body must be a JSON object', { errors: [{ field: '(body)', message: 'request body must be a JSON object' }] });
  const r = v.safeParse(CreateBody, body);
  // Without `methods` a missing currency is the error it always was, beside the body's other ones.
  const record = body as Record<string, unknown>;
  const noCurrency = record.currency === undefined && record.methods === undefined ? [{ field: 'currency', message: 'currency is required' }] : [];
  if (r.success && noCurrency.length === 0) {
    const both = r.output.amount !== undefined && r.output.price !== undefined;
    if (both || (r.output.amount === undefined && r.output.price === undefined)) {
      const message = both ? 'give either amount or price, not both' : 'amount (or price) is required';
      throw new PaydError('INVALID_REQUEST', message, { errors: [{ field: 'amount', message }] });
    }
    const { methods, currency, ...rest } = r.output;
    if (methods === undefined) return { open: false, input: { ...rest, currency: currency! } };
    if (currency !== undefined) {
      const message = 'give either currency or methods, not both';
      throw new PaydError('INVALID_REQUEST', message, { errors: [{ field: 'methods', message }] });
    }
    return { open: true, input: { ...rest, methods } };
  }
  const issues = r.success ? [] : r.issues.map((i) => {
    const field = v.getDotPath(i) ?? '(body)';
    return { field, message: i.input === undefined ? `${field} is required` : i.message };
  });
  // In the body's field order, as the schema reported them before currency became optional.
  const cut = issues.findIndex((e) => !['amount', 'price'].includes(e.field.split('.')[0]));
  const errors = cut < 0 ? [...issues, ...noCurrency] : [...issues.slice(0, cut), ...noCurrency, ...issues.slice(cut)];
  throw new PaydError('INVALID_REQUEST', errors.map((e) => e.message).join('; '), { errors });
}

/** A create that names its method (the only kind before open intents); an open one is refused. */
export function parseCreateBody(body: unknown): CreateIntentInput {
  const request = parseCreateRequest(body);
  if (request.open) throw new PaydError('INVALID_REQUEST', 'currency is required', { errors: [{ field: 'currency', message: 'currency is required' }] });
  return request.input;
}

const timestamp = (what: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.isoTimestamp(`${what} must be an ISO 8601 timestamp such as 2026-11-22T10:00:00.000Z`),
      v.check((s) => Number.isFinite(Date.parse(s)), `${what} must be an ISO 8601 timestamp such as 2026-11-22T10:00:00.000Z`),
    ),
  );

export const INTENT_STATUSES = ['pending', 'settled', 'expired', 'canceled'] as const;

/** GET /api/v1/intents' query; `currency` is one of the methods this payd knows. */
export const listIntentsQuery = (methods: readonly string[]) =>
  v.strictObject(
    {
      status: v.optional(v.pipe(v.picklist(INTENT_STATUSES, `status must be one of ${INTENT_STATUSES.join(', ')}`), v.description('Only intents in this status (as the fetch reports it).'))),
      currency: v.optional(v.pipe(v.picklist(methods, `currency must be one of ${methods.join(', ')}`), v.description('Only intents of this payment method.'))),
      order_id: v.optional(
        v.pipe(
          v.string(),
          v.minLength(1, 'order_id must not be empty'),
          v.maxLength(128, 'order_id must be at most 128 characters'),
          v.description('Only the intent with this order_id.'),
        ),
      ),
      link_id: v.optional(v.pipe(v.string(), v.uuid('link_id must be a payment link id'), v.description('Only the intents customers created from this payment link.'))),
      created_from: v.pipe(timestamp('created_from'), v.description('Only intents created at or after this time.')),
      created_to: v.pipe(timestamp('created_to'), v.description('Only intents created before this time.')),
      limit: pageLimit,
      cursor: v.optional(v.pipe(v.string(), v.maxLength(200, 'cursor is not one this server issued'), v.description('The next_cursor of the previous page; keep the other parameters the same.'))),
    },
    'unknown query parameter',
  );

/**
 * POST /api/v1/intents/create-payment, GET /api/v1/intents/{id}, GET /api/v1/intents (the
 * merchant's list), POST /api/v1/intents/{id}/cancel and a held payment's accept / refunded.
 */
export function intentRoutes(
  app: H3,
  { route, notAllowed }: RouteKit,
  deps: { intents: IntentService; listing: IntentListing; cancels: IntentCancellation; heldPayments: HeldPayments; methods: { ids: readonly string[] } },
): void {
  app.post(
    '/api/v1/intents/create-payment',
    route(async (event, { merchant }) => {
      const request = parseCreateRequest(await readJsonBody(event));
      return jsonReply(request.open ? await deps.intents.createOpen(merchant!, request.input) : await deps.intents.create(merchant!, request.input));
    }, { auth: true }),
  );
  app.all('/api/v1/intents/create-payment', notAllowed('POST'));

  app.get(
    '/api/v1/intents/:intent_id',
    route((event, { merchant }) => andThen(deps.intents.getForMerchant(merchant!, event.context.params?.intent_id ?? ''), (view) => jsonReply(view)), { auth: true }),
  );
  app.all('/api/v1/intents/:intent_id', notAllowed('GET'));

  const ListIntentsQuery = listIntentsQuery(deps.methods.ids);
  app.get(
    '/api/v1/intents',
    route(async (event, { merchant }) => {
      const q = parseQuery(ListIntentsQuery, event.url.searchParams);
      return jsonReply(
        await deps.listing.list(merchant!.clientId, {
          status: q.status,
          currency: q.currency,
          order_id: q.order_id,
          link_id: q.link_id,
          createdFrom: q.created_from === undefined ? undefined : Date.parse(q.created_from),
          createdTo: q.created_to === undefined ? undefined : Date.parse(q.created_to),
          limit: q.limit ?? 20,
          cursor: q.cursor,
        }),
      );
    }, { auth: true }),
  );
  app.all('/api/v1/intents', notAllowed('GET'));

  app.post(
    '/api/v1/intents/:intent_id/cancel',
    route(async (event, { merchant }) => jsonReply(await deps.cancels.cancel(event.context.params?.intent_id ?? '', { merchantId: merchant!.clientId, actor: 'api' })), { auth: true }),
  );
  app.all('/api/v1/intents/:intent_id/cancel', notAllowed('POST'));

  // A held payment: the merchant accepts it (the intent settles) or says it returned it.
  for (const [verb, act] of [['accept', deps.heldPayments.acceptPayment], ['refunded', deps.heldPayments.markRefunded]] as const) {
    const path = `/api/v1/intents/:intent_id/payments/:transaction_hash/${verb}`;
    app.post(
      path,
      route(async (event, { merchant }) => {
        const params = event.context.params ?? {};
        const transactionHash = safeDecode(params.transaction_hash ?? '');
        if (transactionHash.length === 0 || transactionHash.length > 200) {
          throw new PaydError('INVALID_REQUEST', 'transaction_hash must be 1 to 200 characters', { errors: [{ field: 'transaction_hash', message: '1 to 200 characters' }] });
        }
        return jsonReply(await act({ intentId: params.intent_id ?? '', transactionHash, merchantId: merchant!.clientId, actor: `api:${merchant!.clientId}` }));
      }, { auth: true }),
    );
    app.all(path, notAllowed('POST'));
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
