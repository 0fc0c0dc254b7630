import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { stringifyJson } from '../src/domain/json.ts';
import { buildOpenApiDocument } from '../src/http/openapi/document.ts';

/**
 * The files derived from the OpenAPI document and kept in the repo: the document itself,
 * the TypeScript types the tests' generated client uses, and the TypeScript client package's
 * own copy of them (packages/client ships on its own, so it cannot import test/). `npm run
 * openapi` writes them; a test fails when they are stale.
 */
export async function renderOpenApiFiles(): Promise<Array<{ path: string; text: string }>> {
  const doc = buildOpenApiDocument();
  const types = astToString(await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]));
  return [
    { path: 'docs/openapi.json', text: `${stringifyJson(doc, 2)}\n` },
    { path: 'test/generated/payd-api.ts', text: `${COMMENT_HEADER}// From docs/openapi.json by \`npm run openapi\`.\n\n${types}` },
    { path: 'packages/client/src/api.ts', text: `${COMMENT_HEADER}// From payd's docs/openapi.json (API ${(doc as { info: { version: string } }).info.version}) by \`npm run openapi\` in the payd repository.\n\n${types}` },
  ];
}
