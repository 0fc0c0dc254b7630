import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/http/openapi/document.ts';

type Json = Record<string, any>;
// ajv-formats is CommonJS: its default export arrives wrapped under tsx.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

/**
 * Checks API responses against the OpenAPI document, as a generated client would rely on
 * them. Objects are closed here (no undocumented properties), so a field added to a
 * response without documenting it fails the tests that see it.
 */
export function createResponseChecker(doc: Json = buildOpenApiDocument()) {
  const closed = closeObjects(structuredClone(doc));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(closed, 'openapi.json');
  const compiled = new Map<string, ValidateFunction>();
  const paths = Object.keys(closed.paths).map((template) => ({
    template,
    params: (template.match(/\{/g) ?? []).length,
    re: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  paths.sort((a, b) => a.params - b.params); // static paths before templated ones

  return {
    /** undefined when a webhook body is as the document's `webhooks` describe it, else what is wrong. */
    checkWebhook(body: unknown): string | undefined {
      const type = (body as { type?: string } | null)?.type ?? '';
      if (!closed.webhooks?.[type]) return `webhook type ${JSON.stringify(type)} not documented`;
      const pointer = `openapi.json#/webhooks/${escape(type)}/post/requestBody/content/${escape('application/json')}/schema`;
      let validate = compiled.get(pointer);
      if (!validate) {
        validate = ajv.getSchema(pointer)!;
        compiled.set(pointer, validate);
      }
      return validate(body) ? undefined : `webhook ${type}: ${ajv.errorsText(validate.errors)}`;
    },

    /** undefined when the response is as documented (or the route is not an API operation), else what is wrong. */
    check(method: string, url: string, status: number, contentType: string | null, body: unknown): string | undefined {
      const pathname = new URL(url, 'http://x').pathname;
      const path = paths.find((p) => p.re.test(pathname));
      const op = path && closed.paths[path.template][method.toLowerCase()];
      if (!path || !op) return undefined; // unknown route or verb: not an operation of the document
      const where = `${method} ${path.template} → ${status}`;
      if (!op.responses[String(status)]) return `${where}: status not documented`;
      if (!/^application\/json\b/.test(contentType ?? '')) return `${where}: content-type ${contentType}`;
      const pointer = `openapi.json#/paths/${escape(path.template)}/${method.toLowerCase()}/responses/${status}/content/${escape('application/json')}/schema`;
      let validate = compiled.get(pointer);
      if (!validate) {
        validate = ajv.getSchema(pointer);
        if (!validate) return `${where}: no schema`;
        compiled.set(pointer, validate);
      }
      if (validate(body)) return undefined;
      return `${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 500)}`;
    },
  };
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function closeObjects(node: any): any {
  if (Array.isArray(node)) node.forEach(closeObjects);
  else if (node && typeof node === 'object') {
    if (node.type === 'object' && node.properties && node.additionalProperties === undefined) node.additionalProperties = false;
    for (const v of Object.values(node)) closeObjects(v);
  }
  return node;
}

let shared: ReturnType<typeof createResponseChecker> | undefined;
/** One checker per test process: compiling the document once is enough. */
export const responseChecker = () => (shared ??= createResponseChecker());

/** A fetch that fails the test when a response does not match the document. */
export function checkedFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    const res = await inner(req);
    const text = await res.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const problem = responseChecker().check(req.method, req.url, res.status, res.headers.get('content-type'), body);
    if (problem) throw new Error(`response does not match the OpenAPI document: ${problem}`);
    return res;
  };
}
