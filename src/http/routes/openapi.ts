import type { H3 } from 'h3';
import { stringifyJson } from '../../domain/json.ts';
import { JsonReply } from '../errors.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';
import type { RouteKit } from './kit.ts';

/** GET /api/v1/openapi.json, without credentials: the document, with this server's address. */
export function openApiRoutes(app: H3, { route, notAllowed }: RouteKit, d: { publicUrl: string }): void {
  const text = stringifyJson(buildOpenApiDocument({ serverUrl: d.publicUrl }));
  app.get('/api/v1/openapi.json', route(async () => new JsonReply(text, 200), { auth: false }));
  app.all('/api/v1/openapi.json', notAllowed('GET'));
}
