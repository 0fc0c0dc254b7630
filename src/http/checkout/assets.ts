import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { securityHeaders } from './headers.ts';
import type { AssetUrls } from './page.ts';

const FILES = {
  'checkout.js': 'text/javascript; charset=utf-8',
  'checkout.css': 'text/css; charset=utf-8',
} as const;

export interface Assets {
  urls: AssetUrls;
  /** The response for /pay/assets/:name, or undefined for any other name. */
  serve(name: string): Response | undefined;
}

/**
 * The page's own script and stylesheet, same-origin so the CSP can forbid inline
 * code. Read once when the routes are registered (not at import); the URLs carry a
 * content hash so browsers may cache them for good.
 */
export function loadAssets(): Assets {
  const files = new Map<string, { body: Buffer; type: string }>();
  const version: Record<string, string> = {};
  for (const [name, type] of Object.entries(FILES)) {
    const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
    files.set(name, { body, type });
    version[name] = createHash('sha256').update(body).digest('hex').slice(0, 12);
  }
  return {
    urls: { js: `/pay/assets/checkout.js?v=${version['checkout.js']}`, css: `/pay/assets/checkout.css?v=${version['checkout.css']}` },
    serve(name) {
      const file = files.get(name);
      if (!file) return undefined;
      const headers = securityHeaders(file.type);
      headers.set('cache-control', 'public, max-age=31536000, immutable');
      return new Response(new Uint8Array(file.body), { headers });
    },
  };
}
