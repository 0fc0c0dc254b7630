/**
 * Where the docs list the payment methods, the list is the registry's: a method added (a family's
 * line, a token's row) without its mention in the README and the API reference fails here, as
 * the API document's `currency` enum follows the registry by construction (npm run openapi).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { builtinMethods } from '../../src/methods/registry.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const ids = (text: string) => [...text.matchAll(/`?([A-Z][A-Z0-9_]+)`?/g)].map((m) => m[1]);

test("the README's sandbox sentence names every method, in the registry's order", () => {
  const listed = /every payment\s+method \(([^)]*)\)/.exec(read('README.md'));
  assert.ok(listed, 'the README says which methods the demo enables');
  assert.deepEqual(ids(listed[1]!), builtinMethods.ids);
});

test("the API reference's `currency` row names every method, in the registry's order", () => {
  const row = /^\| `currency` \| string \| (.*) \(case-sensitive/m.exec(read('docs/api.md'));
  assert.ok(row, 'docs/api.md has the create body\'s currency row');
  assert.deepEqual(ids(row[1]!), builtinMethods.ids);
});

test('the shipped API document lists every method as a currency', () => {
  const doc = JSON.parse(read('docs/openapi.json'));
  // null: an open intent before its customer chose a method.
  assert.deepEqual(doc.components.schemas.Intent.properties.currency.enum, [...builtinMethods.ids, null]);
  assert.deepEqual(doc.components.schemas.Intent.properties.options.items.properties.currency.enum, builtinMethods.ids);
});
