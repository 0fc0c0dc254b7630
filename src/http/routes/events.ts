import type { H3 } from 'h3';
import type { EventFeed } from '../../services/events/feed.ts';
import { JsonReply } from '../errors.ts';
import { EventsQuery, parseQuery } from '../requests.ts';
import type { RouteKit } from './kit.ts';

/** GET /api/v1/events: catch up on webhook events after the last one seen. */
export function eventRoutes(app: H3, { route, notAllowed }: RouteKit, d: { feed: EventFeed }): void {
  app.get(
    '/api/v1/events',
    route(async (event, { merchant }) => {
      const q = parseQuery(EventsQuery, event.url.searchParams);
      return new JsonReply(await d.feed.page(merchant!.clientId, { after: q.after, type: q.type, limit: q.limit ?? 20 }), 200);
    }, { auth: true }),
  );
  app.all('/api/v1/events', notAllowed('GET'));
}
