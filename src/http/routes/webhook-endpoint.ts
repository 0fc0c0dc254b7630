import type { H3 } from 'h3';
import * as v from 'valibot';
import type { MerchantService } from '../../services/merchants/index.ts';
import { readJsonBody } from '../body.ts';
import { jsonReply } from '../errors.ts';
import { parseBody } from '../parse.ts';
import type { RouteKit } from './kit.ts';

export const WebhookEndpointBody = v.strictObject(
  {
    url: v.pipe(
      v.nullable(v.pipe(v.string('url must be a string or null'), v.maxLength(2048, 'url must be at most 2048 characters'))),
      v.description('https URL; loopback (127.0.0.0/8, ::1, localhost), and plain http to it, only where the operator allows loopback targets (webhooks.allowLoopback; the sandbox does); null removes it.'),
    ),
  },
  'unknown field',
);

/** The caller's webhook endpoint: the same merchant service (and URL rule) as `payd merchant set-webhook`. */
export function webhookEndpointRoutes(app: H3, { route, notAllowed }: RouteKit, deps: { merchants: MerchantService }): void {
  app.get('/api/v1/webhook-endpoint', route(async (_event, { merchant }) => jsonReply(await deps.merchants.webhookEndpoint(merchant!.clientId)), { auth: true }));
  app.put(
    '/api/v1/webhook-endpoint',
    route(async (event, { merchant }) => {
      const { url } = parseBody(WebhookEndpointBody, await readJsonBody(event));
      await deps.merchants.setWebhook(merchant!.clientId, url, 'api');
      return jsonReply(await deps.merchants.webhookEndpoint(merchant!.clientId));
    }, { auth: true }),
  );
  app.all('/api/v1/webhook-endpoint', notAllowed('GET, PUT'));

  app.post(
    '/api/v1/webhook-endpoint/rotate-secret',
    route(async (_event, { merchant }) => {
      const r = await deps.merchants.rotateWebhookSecret(merchant!.clientId, 'api');
      return jsonReply({ webhook_secret: r.webhook_secret, previous_valid_until: r.previous_valid_until });
    }, { auth: true }),
  );
  app.all('/api/v1/webhook-endpoint/rotate-secret', notAllowed('POST'));
}
