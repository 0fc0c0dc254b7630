import type { H3 } from 'h3';
import * as v from 'valibot';
import { FEED_TYPES, type EventFeed } from '../../services/events/feed.ts';
import { JsonReply } from '../errors.ts';
import { pageLimit, parseQuery } from '../parse.ts';
import type { RouteKit } from './kit.ts';

export const EventsQuery = v.strictObject(
  {
    after: v.optional(v.pipe(v.string(), v.maxLength(64, 'after must be an event id'), v.description('An event id: only events written after it (your last seen id, or next_cursor).'))),
    type: v.optional(v.pipe(v.picklist(FEED_TYPES, `type must be one of ${FEED_TYPES.join(', ')}`), v.description('Only events of this type.'))),
    limit: pageLimit,
  },
  'unknown query parameter',
);

/** GET /api/v1/events: catch up on webhook events after the last one seen. */
export function eventRoutes(app: H3, { route, notAllowed }: RouteKit, deps: { feed: EventFeed }): void {
  app.get(
    '/api/v1/events',
    route(async (event, { merchant }) => {
      const q = parseQuery(EventsQuery, event.url.searchParams);
      return new JsonReply(await deps.feed.page(merchant!.clientId, { after: q.after, type: q.type, limit: q.limit ?? 20 }), 200);
    }, { auth: true }),
  );
  app.all('/api/v1/events', notAllowed('GET'));
}
