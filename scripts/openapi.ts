// Writes the OpenAPI document and the client types generated from it (see openapi-files.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOpenApiFiles } from './openapi-files.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const f of await renderOpenApiFiles()) {
  mkdirSync(dirname(`${root}${f.path}`), { recursive: true });
  writeFileSync(`${root}${f.path}`, f.text);
  console.log(`wrote ${f.path}`);
}
