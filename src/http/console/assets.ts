import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { consoleHeaders } from './headers.ts';

const FILES = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'console.svg': 'image/svg+xml',
} as const;

export interface ConsoleAssets {
  js: string;
  css: string;
  icon: string;
  serve(name: string): Response | undefined;
}

/**
 * The console's script and stylesheet, same-origin so the CSP forbids inline code. Read when
 * the routes are registered; URLs carry a content hash so browsers may keep them for good.
 * In dist/ they sit beside the checkout's in dist/assets/ (scripts/build.mjs copies both).
 */
export function loadConsoleAssets(): ConsoleAssets {
  const files = new Map<string, { body: Buffer; type: string }>();
  const v: Record<string, string> = {};
  for (const [name, type] of Object.entries(FILES)) {
    const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
    files.set(name, { body, type });
    v[name] = createHash('sha256').update(body).digest('hex').slice(0, 12);
  }
  return {
    js: `/console/assets/console.js?v=${v['console.js']}`,
    css: `/console/assets/console.css?v=${v['console.css']}`,
    icon: `/console/assets/console.svg?v=${v['console.svg']}`,
    serve(name) {
      const file = files.get(name);
      if (!file) return undefined;
      const headers = consoleHeaders(file.type);
      headers.set('cache-control', 'public, max-age=31536000, immutable');
      return new Response(new Uint8Array(file.body), { headers });
    },
  };
}
