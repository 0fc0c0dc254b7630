import type { H3 } from 'h3';
import { stringifyJson } from '../../domain/json.ts';
import type { MethodRegistry } from '../../methods/registry.ts';
import { JsonReply } from '../errors.ts';
import type { RouteKit } from './kit.ts';

/**
 * GET /api/v1/openapi.json, without credentials: the document, with this server's address.
 * Built (and its converter loaded) at the first request, then kept: most daemons never serve it.
 */
export function openApiRoutes(app: H3, { route, notAllowed }: RouteKit, deps: { publicUrl: string; methods: MethodRegistry }): void {
  let text: Promise<string> | null = null;
  const document = () =>
    (text ??= import('../openapi/document.ts').then(
      (m) => stringifyJson(m.buildOpenApiDocument({ serverUrl: deps.publicUrl, methods: deps.methods })),
      (err) => {
        text = null; // not remembered: the next request tries again
        throw err;
      },
    ));
  app.get('/api/v1/openapi.json', route(async () => new JsonReply(await document(), 200), { auth: false }));
  app.all('/api/v1/openapi.json', notAllowed('GET'));
}
