import * as v from 'valibot';
import { PaydError } from '../domain/errors.ts';

/**
 * Parsing the merchant API's requests against their valibot schemas (each resource's schemas sit
 * with its routes in routes/, and the OpenAPI document is derived from them, so validation and
 * documentation cannot drift): every failure is one INVALID_REQUEST naming its fields.
 */

/** The page size of the list endpoints. */
export const pageLimit = v.optional(
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
