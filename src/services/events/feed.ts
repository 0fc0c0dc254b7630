import type { Db } from '../../db/open.ts';
import { feedEvents, feedPositionOf } from '../../db/events.ts';
import { PaydError } from '../../domain/errors.ts';
import { stringifyJson } from '../../domain/json.ts';

/** The events a merchant can catch up on: what its webhooks carry (webhook.test is not one). */
export const FEED_TYPES = ['payment.success', 'payment.held', 'payment.refunded', 'intent.expired', 'intent.canceled'] as const;
export type FeedType = (typeof FEED_TYPES)[number];

export interface EventFeedInput {
  after?: string;
  type?: FeedType;
  limit: number;
}

/**
 * One feed entry as JSON text. `data` is spliced in from the stored webhook body, so it is
 * byte for byte what the webhook sent (amounts keep their plain-decimal form).
 */
function entryJson(e: { id: string; type: string; created_at: number; body: string }): string {
  const head = stringifyJson({ id: e.id, type: e.type, created_at: new Date(e.created_at).toISOString() }).slice(0, -1);
  return `${head},"data":${dataOf(e.body)}}`;
}

/** The `data` member of a stored body `{"type":…,"timestamp":…,"data":…}` (events/outbox.ts writes that order). */
function dataOf(body: string): string {
  const parsed = JSON.parse(body) as { type: string; timestamp: string; data: unknown };
  const prefix = `${stringifyJson({ type: parsed.type, timestamp: parsed.timestamp }).slice(0, -1)},"data":`;
  if (body.startsWith(prefix) && body.endsWith('}')) return body.slice(prefix.length, -1);
  return stringifyJson(parsed.data);
}

/**
 * The merchant's event catch-up: events in the order they were written (the outbox's
 * `seq`), after a given event id. Events are never deleted, so the 30-day promise holds.
 */
export function createEventFeed(deps: { db: Db }) {
  return {
    /** The page as JSON text, ready to send. */
    async page(merchantId: string, input: EventFeedInput): Promise<string> {
      let afterSeq = 0;
      if (input.after !== undefined) {
        const from = await feedPositionOf(deps.db, merchantId, input.after);
        if (from === undefined) throw new PaydError('INVALID_REQUEST', `no event ${JSON.stringify(input.after)} to continue after`, { errors: [{ field: 'after', message: 'unknown event id' }] });
        afterSeq = from;
      }
      const rows = await feedEvents(deps.db, merchantId, afterSeq, input.type ? [input.type] : FEED_TYPES, input.limit + 1);
      const page = rows.slice(0, input.limit);
      const hasMore = rows.length > input.limit;
      // Where to continue from: the last event served, else where the caller already was.
      const next = page.at(-1)?.id ?? input.after ?? null;
      return `{"data":[${page.map(entryJson).join(',')}],"has_more":${hasMore},"next_cursor":${JSON.stringify(next)}}`;
    },
  };
}

export type EventFeed = ReturnType<typeof createEventFeed>;
