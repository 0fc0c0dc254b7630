import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The layer order, lowest first: a module may import its own layer and those before it, never
 * one after it. Written once, here, with no exceptions. A layer is named by the first path
 * segment under src/ without its extension ("app" is src/app/).
 */
const LAYERS: readonly (readonly string[])[] = [
  ['domain'], // pure rules and the ports the layers above implement
  ['runtime', 'system', 'stdio', 'log', 'metrics'], // the loop primitive and process plumbing, no business
  ['config'],
  ['db'],
  ['methods', 'pricing', 'webhooks'], // pricing: the fiat rate sources, beside the payment sources; webhooks: sending, over db/ alone
  ['services'],
  ['workers'],
  ['http'],
  ['app'], // the composition root
  ['cli'], // the entry point: `payd serve` builds the app
];

const src = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every relative module a file imports: static imports, `export … from`, `import type`, dynamic `import()`. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((i) => i.fileName).filter((f) => f.startsWith('.')).map((f) => resolve(dirname(file), f));
}

export function layerOf(file: string): number {
  const first = relative(src, file).split(sep)[0].replace(/\.[^.]+$/, '');
  return LAYERS.findIndex((names) => names.includes(first));
}

/** Strongly connected components with more than one module (or a module importing itself): Tarjan. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

const files = sourceFiles(src);
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const name = (f: string) => relative(src, f);

test('the import parser sees static, type-only, re-exported and dynamic imports', () => {
  const f = join(src, 'services', 'x.ts');
  const text = [
    "import { a } from '../domain/a.ts';",
    "import type { B } from '../db/b.ts';",
    "export { c } from './c.ts';",
    "export * from '../webhooks/d.ts';",
    "const e = await import('../http/e.ts');",
    "import 'node:fs';",
    "import x from 'kysely';",
  ].join('\n');
  assert.deepEqual(importsOf(f, text).map(name), ['domain/a.ts', 'db/b.ts', 'services/c.ts', 'webhooks/d.ts', 'http/e.ts']);
});

test('the cycle finder finds a circle and a self-import, and no circle in a chain', () => {
  assert.deepEqual(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), [['a', 'b', 'c']]);
  assert.deepEqual(cycles(new Map([['a', ['a']]])), [['a']]);
  assert.deepEqual(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', []]])), []);
});

test('every source module belongs to a layer', () => {
  assert.ok(files.length > 100, `found only ${files.length} files under src/`);
  assert.deepEqual(files.filter((f) => layerOf(f) < 0).map(name), []);
});

test('every import points down or sideways in the layer order, never up', () => {
  const up: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (!to.startsWith(src + sep)) {
        up.push(`${name(from)} -> ${relative(src, to)} (outside src/)`);
        continue;
      }
      if (layerOf(to) > layerOf(from)) up.push(`${name(from)} -> ${name(to)}`);
    }
  }
  assert.deepEqual(up, []);
});

test('no import cycles between modules', () => {
  assert.deepEqual(cycles(graph).map((c) => c.map(name)), []);
});
