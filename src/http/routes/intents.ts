import type { H3 } from 'h3';
import type { IntentCancellation } from '../../services/intent-cancel.ts';
import type { IntentListing } from '../../services/intent-list.ts';
import { jsonReply } from '../errors.ts';
import { listIntentsQuery, parseQuery } from '../requests.ts';
import type { RouteKit } from './kit.ts';

/** GET /api/v1/intents (the merchant's list) and POST /api/v1/intents/{id}/cancel. */
export function intentRoutes(app: H3, { route, notAllowed }: RouteKit, d: { listing: IntentListing; cancels: IntentCancellation; methods: { ids: readonly string[] } }): void {
  const ListIntentsQuery = listIntentsQuery(d.methods.ids);
  app.get(
    '/api/v1/intents',
    route(async (event, { merchant }) => {
      const q = parseQuery(ListIntentsQuery, event.url.searchParams);
      return jsonReply(
        await d.listing.list(merchant!.clientId, {
          status: q.status,
          currency: q.currency,
          order_id: q.order_id,
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
    route(async (event, { merchant }) => jsonReply(await d.cancels.cancel(event.context.params?.intent_id ?? '', { merchantId: merchant!.clientId, actor: 'api' })), { auth: true }),
  );
  app.all('/api/v1/intents/:intent_id/cancel', notAllowed('POST'));
}
