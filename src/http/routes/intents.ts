import type { H3 } from 'h3';
import type { IntentCancellation } from '../../services/intents/cancel.ts';
import type { IntentListing } from '../../services/intents/list.ts';
import type { HeldPayments } from '../../services/held-payments.ts';
import { PaydError } from '../../domain/errors.ts';
import { jsonReply } from '../errors.ts';
import { listIntentsQuery, parseQuery } from '../requests.ts';
import type { RouteKit } from './kit.ts';

/** GET /api/v1/intents (the merchant's list) and POST /api/v1/intents/{id}/cancel. */
export function intentRoutes(app: H3, { route, notAllowed }: RouteKit, d: { listing: IntentListing; cancels: IntentCancellation; heldPayments: HeldPayments; methods: { ids: readonly string[] } }): void {
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

  // A held payment (issue 27): the merchant accepts it (the intent settles) or says it returned it.
  for (const [verb, act] of [['accept', d.heldPayments.acceptPayment], ['refunded', d.heldPayments.markRefunded]] as const) {
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
