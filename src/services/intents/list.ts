import { intentFromRow } from '../../db/intent-rows.ts';
import { sql } from 'kysely';
import type { Db } from '../../db/open.ts';
import type { IntentStatus } from '../../db/schema.ts';
import { PaydError } from '../../domain/errors.ts';
import { intentView, NO_MONEY, type IntentView, type ViewContext } from '../../domain/intent.ts';
import { moneyOf } from './money.ts';
import type { Method } from '../../domain/methods.ts';

export interface ListIntentsInput {
  status?: IntentStatus;
  currency?: Method;
  order_id?: string;
  /** Only the intents created from this payment link. */
  link_id?: string;
  /** Inclusive lower bound on created_at, ms. */
  createdFrom?: number;
  /** Exclusive upper bound on created_at, ms. */
  createdTo?: number;
  limit: number;
  cursor?: string;
}

export interface IntentPage {
  data: IntentView[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The position after which the next page starts: (created_at, id) of the last row served. */
interface Position {
  createdAt: number;
  id: string;
}

const encodeCursor = (p: Position) => Buffer.from(JSON.stringify([p.createdAt, p.id])).toString('base64url');

function decodeCursor(cursor: string): Position {
  const bad = () => new PaydError('INVALID_REQUEST', 'cursor is not one this server issued', { errors: [{ field: 'cursor', message: 'invalid cursor' }] });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || !Number.isSafeInteger(parsed[0]) || typeof parsed[1] !== 'string' || parsed[1].length > 64) throw bad();
  return { createdAt: parsed[0], id: parsed[1] };
}

/**
 * One merchant's intents, newest first. Keyset pagination on (created_at, id): intents
 * created while a client pages are newer than its cursor, so they never shift a page.
 */
/**
 * The intents a filter selects, newest first, at most `limit + 1` (the extra row says there is
 * more): the one rule for both the API's cursor list and the CLI's `intents list` (every merchant).
 */
export function selectIntents(db: Db, merchantId: string | undefined, input: ListIntentsInput, now: number) {
  let q = db.selectFrom('intents').selectAll();
  // `status || ''` keeps the planner off the global status index: the per-merchant index must
  // drive, so the cost never depends on other merchants' intents.
  const status = merchantId === undefined ? sql.ref<string>('status') : sql<string>`${sql.ref('status')} || ''`;
  if (merchantId !== undefined) q = q.where('merchant_id', '=', merchantId);
  // pending and expired as the fetch reports them: a pending intent past expires_at is expired.
  if (input.status === 'pending') q = q.where(status, '=', 'pending').where('expires_at', '>', now);
  else if (input.status === 'expired') q = q.where((eb) => eb.or([eb(status, '=', 'expired'), eb.and([eb(status, '=', 'pending'), eb('expires_at', '<=', now)])]));
  else if (input.status) q = q.where(status, '=', input.status);
  if (input.currency) q = q.where('method', '=', input.currency);
  if (input.order_id !== undefined) q = q.where('order_id', '=', input.order_id);
  if (input.link_id !== undefined) q = q.where('link_id', '=', input.link_id);
  if (input.createdFrom !== undefined) q = q.where('created_at', '>=', input.createdFrom);
  if (input.createdTo !== undefined) q = q.where('created_at', '<', input.createdTo);
  if (input.cursor !== undefined) {
    const at = decodeCursor(input.cursor);
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(at.createdAt, at.id)));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(input.limit + 1);
}

export function createIntentListing(deps: { db: Db; view: () => ViewContext }) {
  const query = (merchantId: string, input: ListIntentsInput, now: number) => selectIntents(deps.db, merchantId, input, now);

  return {
    query,
    async list(merchantId: string, input: ListIntentsInput): Promise<IntentPage> {
      const ctx = deps.view();
      const rows = await query(merchantId, input, ctx.now).execute();
      const page = rows.slice(0, input.limit);
      const hasMore = rows.length > input.limit;
      const last = page.at(-1);
      const intents = page.map(intentFromRow);
      const money = await moneyOf(deps.db, intents);
      return {
        data: intents.map((i) => intentView(i, ctx, money.get(i.id) ?? NO_MONEY)),
        has_more: hasMore,
        next_cursor: hasMore && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
      };
    },
  };
}

export type IntentListing = ReturnType<typeof createIntentListing>;
