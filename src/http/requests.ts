import * as v from 'valibot';
import { PaydError } from '../domain/errors.ts';
import { FEED_TYPES } from '../services/events/feed.ts';

/**
 * Request schemas of the merchant API beyond create-payment. The OpenAPI document is
 * derived from these (http/openapi/), so validation and documentation cannot drift.
 */

const limit = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^\d{1,3}$/, 'limit must be a whole number from 1 to 100'),
    v.transform(Number),
    v.number(),
    v.integer(),
    v.minValue(1, 'limit must be a whole number from 1 to 100'),
    v.maxValue(100, 'limit must be a whole number from 1 to 100'),
    v.description('Page size, 1 to 100; default 20.'),
  ),
);

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
      created_from: v.pipe(timestamp('created_from'), v.description('Only intents created at or after this time.')),
      created_to: v.pipe(timestamp('created_to'), v.description('Only intents created before this time.')),
      limit,
      cursor: v.optional(v.pipe(v.string(), v.maxLength(200, 'cursor is not one this server issued'), v.description('The next_cursor of the previous page; keep the other parameters the same.'))),
    },
    'unknown query parameter',
  );

export const EventsQuery = v.strictObject(
  {
    after: v.optional(v.pipe(v.string(), v.maxLength(64, 'after must be an event id'), v.description('An event id: only events written after it (your last seen id, or next_cursor).'))),
    type: v.optional(v.pipe(v.picklist(FEED_TYPES, `type must be one of ${FEED_TYPES.join(', ')}`), v.description('Only events of this type.'))),
    limit,
  },
  'unknown query parameter',
);

export const WebhookEndpointBody = v.strictObject(
  {
    url: v.pipe(
      v.nullable(v.pipe(v.string('url must be a string or null'), v.maxLength(2048, 'url must be at most 2048 characters'))),
      v.description('https URL; loopback (127.0.0.0/8, ::1, localhost), and plain http to it, only where the operator allows loopback targets (webhooks.allowLoopback; the sandbox does); null removes it.'),
    ),
  },
  'unknown field',
);

function invalid(issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]], where: string): PaydError {
  const errors = issues.map((i) => {
    const field = v.getDotPath(i) ?? where;
    return { field, message: i.input === undefined && i.kind === 'schema' && i.type !== 'strict_object' ? `${field} is required` : i.message };
  });
  return new PaydError('INVALID_REQUEST', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
}

/** Query parameters as one object; a parameter given twice is an error, not a silent pick. */
export function parseQuery<S extends v.GenericSchema>(schema: S, params: URLSearchParams): v.InferOutput<S> {
  const raw: Record<string, string> = {};
  const repeated: string[] = [];
  for (const [k, value] of params) {
    if (k in raw) repeated.push(k);
    raw[k] = value;
  }
  if (repeated.length > 0) {
    const errors = [...new Set(repeated)].map((field) => ({ field, message: `${field} must be given at most once` }));
    throw new PaydError('INVALID_REQUEST', errors.map((e) => e.message).join('; '), { errors });
  }
  const r = v.safeParse(schema, raw);
  if (!r.success) throw invalid(r.issues, '(query)');
  return r.output;
}

export function parseBody<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new PaydError('INVALID_REQUEST', 'request body must be a JSON object', { errors: [{ field: '(body)', message: 'request body must be a JSON object' }] });
  const r = v.safeParse(schema, body);
  if (!r.success) throw invalid(r.issues, '(body)');
  return r.output;
}
