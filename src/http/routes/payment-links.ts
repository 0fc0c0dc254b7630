import type { H3 } from 'h3';
import * as v from 'valibot';
import { PaydError } from '../../domain/errors.ts';
import type { LinkInput, LinkService } from '../../services/links/index.ts';
import { readJsonBody } from '../body.ts';
import { jsonReply } from '../errors.ts';
import { parseBody, parseQuery } from '../parse.ts';
import type { RouteKit } from './kit.ts';

// The payment-link resource: its request schemas (the OpenAPI document is derived from them) and its routes.

const decimal = (field: string) =>
  v.union(
    [
      v.pipe(v.number(`${field} must be a number`), v.finite(`${field} must be a finite number`), v.gtValue(0, `${field} must be greater than 0`)),
      v.pipe(v.string(`${field} must be a number or a decimal string`), v.regex(/^\d{1,20}(\.\d{1,20})?$/, `${field} must be a plain decimal such as "499" or "12.50"`)),
    ],
    `${field} must be a number or a decimal string`,
  );
const fiat = (field: string) => v.pipe(v.string(`${field} must be a string`), v.description('ISO 4217: INR, USD or EUR.'));

export const CreateLinkBody = v.strictObject(
  {
    title: v.pipe(v.string('title must be a string'), v.minLength(1, 'title must not be empty'), v.maxLength(100, 'title must be at most 100 characters'), v.description('What the customer pays for, shown on the page ("Blue saree", "counter").')),
    amount: v.optional(v.pipe(decimal('amount'), v.description('A fixed price in INR (the same as price with currency INR). Give one of amount, price and customer_amount.'))),
    price: v.optional(
      v.pipe(
        v.strictObject({ amount: decimal('price.amount'), currency: fiat('price.currency') }, 'price has an unknown field'),
        v.description('A fixed price in a fiat currency: the customer pays it in the method they choose, converted at a locked quote.'),
      ),
    ),
    customer_amount: v.optional(
      v.pipe(
        v.strictObject(
          { min: decimal('customer_amount.min'), max: decimal('customer_amount.max'), currency: v.optional(fiat('customer_amount.currency'), 'INR') },
          'customer_amount has an unknown field',
        ),
        v.description('The customer types the amount (a counter QR), between min and max, in currency (default INR).'),
      ),
    ),
    methods: v.optional(
      v.pipe(
        v.array(v.string('methods must be strings'), 'methods must be an array of method ids'),
        v.maxLength(50, 'methods must name at most 50 methods'),
        v.description('Offer only these payment methods (each enabled here); absent: every enabled method.'),
      ),
    ),
    single_use: v.optional(v.pipe(v.boolean('single_use must be true or false'), v.description('The link takes one paid payment, then says it has been paid.'))),
    expires_at: v.optional(
      v.pipe(
        v.string('expires_at must be a string'),
        v.isoTimestamp('expires_at must be an ISO 8601 timestamp such as 2026-12-31T18:30:00.000Z'),
        v.description('After this time the page says the link has expired and takes nothing.'),
      ),
    ),
  },
  'unknown field',
);

export const ListLinksQuery = v.strictObject(
  {
    limit: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^\d{1,3}$/, 'limit must be a whole number from 1 to 100'),
        v.transform(Number),
        v.number(),
        v.minValue(1, 'limit must be a whole number from 1 to 100'),
        v.maxValue(100, 'limit must be a whole number from 1 to 100'),
        v.description('How many, newest first, 1 to 100; default 50.'),
      ),
    ),
  },
  'unknown query parameter',
);

/** The body as the link service's input: `amount` is a price in INR. */
export function linkInput(body: v.InferOutput<typeof CreateLinkBody>): LinkInput {
  const given = [body.amount, body.price, body.customer_amount].filter((x) => x !== undefined).length;
  if (given !== 1) {
    throw new PaydError('INVALID_REQUEST', 'give exactly one of amount, price and customer_amount', { errors: [{ field: 'amount', message: 'exactly one of amount, price and customer_amount' }] });
  }
  return {
    title: body.title,
    price: body.amount !== undefined ? { amount: body.amount, currency: 'INR' } : body.price,
    customerAmount: body.customer_amount,
    methods: body.methods,
    singleUse: body.single_use,
    expiresAt: body.expires_at === undefined ? undefined : Date.parse(body.expires_at),
  };
}

/** POST/GET /api/v1/payment-links, GET /api/v1/payment-links/{id}, and its deactivate / activate. */
export function paymentLinkRoutes(app: H3, { route, notAllowed }: RouteKit, deps: { links: LinkService }): void {
  app.post(
    '/api/v1/payment-links',
    route(async (event, { merchant }) => jsonReply(await deps.links.create(merchant!.clientId, linkInput(parseBody(CreateLinkBody, await readJsonBody(event))), 'api')), { auth: true }),
  );
  app.get(
    '/api/v1/payment-links',
    route(async (event, { merchant }) => {
      const q = parseQuery(ListLinksQuery, event.url.searchParams);
      return jsonReply({ data: await deps.links.list({ merchantId: merchant!.clientId, limit: q.limit ?? 50 }) });
    }, { auth: true }),
  );
  app.all('/api/v1/payment-links', notAllowed('GET, POST'));
  const id = (event: { context: { params?: Record<string, string> } }) => event.context.params?.link_id ?? '';
  app.get('/api/v1/payment-links/:link_id', route(async (event, { merchant }) => jsonReply(await deps.links.get(id(event), merchant!.clientId)), { auth: true }));
  app.all('/api/v1/payment-links/:link_id', notAllowed('GET'));
  for (const action of ['deactivate', 'activate'] as const) {
    app.post(`/api/v1/payment-links/:link_id/${action}`, route(async (event, { merchant }) => jsonReply(await deps.links[action](id(event), { merchantId: merchant!.clientId, actor: 'api' })), { auth: true }));
    app.all(`/api/v1/payment-links/:link_id/${action}`, notAllowed('POST'));
  }
}
