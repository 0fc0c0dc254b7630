/**
 * The plugin's boundary: nothing outside src/methods/ knows a payment method. Every other layer
 * asks the registry and the descriptors, so a method id never appears there as a literal (a
 * string, a property name, a config key), and no file outside src/methods/ imports a family's
 * own modules (only methods/registry.ts, method.ts, source.ts and the other shared files).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { builtinMethods } from '../../../src/methods/registry.ts';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
const METHODS = join(SRC, 'methods');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|mts|js|mjs)$/.test(name) ? [p] : [];
  });
}

/** Comments say why in words that may name a method; only code counts. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const outside = files(SRC).filter((f) => !f.startsWith(METHODS + '/'));
const families = readdirSync(METHODS).filter((d) => statSync(join(METHODS, d)).isDirectory());

/** A method id as code spells it: a string of its own ('UPI', "SOL", `USDT_SOL`), a quoted key inside one, or a property (.UPI, ['SOL']). */
const spellings = (id: string) => new RegExp(`(['"\`])${id}\\1|\\.${id}\\b|\\[\\s*['"\`]${id}['"\`]\\s*\\]|\\b${id}\\s*:`);

test('no file outside src/methods/ names a payment method', () => {
  assert.ok(outside.length > 50, 'the scan sees the source tree');
  assert.ok(builtinMethods.ids.length > 0);
  const found: string[] = [];
  for (const f of outside) {
    const text = code(readFileSync(f, 'utf8'));
    for (const id of builtinMethods.ids) if (spellings(id).test(text)) found.push(`${relative(SRC, f)}: ${id}`);
  }
  assert.deepEqual(found, []);
});

test("no file outside src/methods/ imports a family's own modules", () => {
  assert.deepEqual(families.sort(), ['evm', 'sandbox', 'solana', 'tron', 'upi']);
  const found: string[] = [];
  const imports = /(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g;
  for (const f of outside) {
    for (const [, spec] of readFileSync(f, 'utf8').matchAll(imports)) {
      const family = families.find((d) => new RegExp(`(^|/)methods/${d}/`).test(spec!));
      if (family) found.push(`${relative(SRC, f)} → ${spec}`);
    }
  }
  assert.deepEqual(found, []);
});

test('the scan would see a method named outside src/methods/ (its patterns match what they must)', () => {
  const p = spellings('USDC_SOL');
  for (const hit of [`if (m === 'USDC_SOL')`, 'config.methods.USDC_SOL', "x['USDC_SOL']", '{ USDC_SOL: 1 }', '`USDC_SOL`']) assert.ok(p.test(code(hit)), hit);
  for (const miss of ['// USDC_SOL in a comment', '/* USDC_SOL */', "'USDC_SOLX'", 'MY_USDC_SOL_COUNT']) assert.ok(!p.test(code(miss)), miss);
});
