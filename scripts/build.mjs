// `npm run build` (also run by `prepare`, so `npm install` / `npm ci` leave a working
// bin/payd): bundles src/ and the libraries it imports into dist/ with esbuild, and copies
// the checkout page's and the console's CSS and JS beside the bundle.
//
// Why a bundle rather than tsc's file-per-module output: V8 keeps every loaded module's source
// text for the life of the process. Loading ~800 separate files with their comments and
// whitespace cost `payd serve` ~15 MB of RSS and half of its start-up time (docs/performance.md).
// Dynamic `import()`s stay separate chunks, so each payment method's libraries still load only
// when that method is configured. Types are `npm run typecheck`'s job.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // A partial install without esbuild: bin/payd then runs the sources through tsx.
  console.error('payd build: esbuild is not installed; skipping (bin/payd will run the sources through tsx)');
  process.exit(0);
}

rmSync(dist, { recursive: true, force: true });
await esbuild.build({
  absWorkingDir: root,
  // The alert inspector's worker thread is started from its own file (src/methods/upi/inspector-pool.ts).
  entryPoints: ['src/cli/main.ts', 'src/cli/output.ts', 'src/methods/upi/inspect-worker.ts'],
  outdir: dist,
  // Flat: every chunk sits in dist/, so a module's `new URL('./assets/…', import.meta.url)`
  // finds dist/assets/ from any chunk, as it finds src/http/checkout/assets/ from the sources.
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // Whitespace and syntax only: names stay, so stack traces and error names read as in the sources.
  minifyWhitespace: true,
  minifySyntax: true,
  // `NODE_OPTIONS=--enable-source-maps` maps stack traces back to src/.
  sourcemap: 'linked',
  sourcesContent: false,
  // Native addons and optional native helpers load from node_modules at run time.
  external: ['better-sqlite3', 'bufferutil', 'utf-8-validate', 'pg-native'],
  // Bundled CommonJS libraries call require() for Node's built-ins and optional packages.
  banner: {
    js: "import{createRequire as __paydCreateRequire}from'node:module';const require=__paydCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

mkdirSync(join(dist, 'assets'), { recursive: true });
// The checkout page's and the operator console's (their names do not collide).
for (const dir of ['src/http/checkout/assets', 'src/http/console/assets']) {
  const assets = join(root, dir);
  for (const name of readdirSync(assets)) copyFileSync(join(assets, name), join(dist, 'assets', name));
}
