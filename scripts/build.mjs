// `npm run build` (also run by `prepare`, so `npm install` / `npm ci` leave a working
// bin/payd): compiles src/ to dist/ with tsc and copies the files tsc does not emit
// (the checkout page's CSS and JS) beside the compiled modules that read them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // `npm ci --omit=dev` has no TypeScript: bin/payd then runs the sources through tsx.
  console.error('payd build: typescript is not installed; skipping (bin/payd will run the sources through tsx)');
  process.exit(0);
}
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);

(function copy(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) copy(p);
    else if (!entry.name.endsWith('.ts')) {
      const out = join(root, 'dist', relative(join(root, 'src'), p));
      mkdirSync(dirname(out), { recursive: true });
      copyFileSync(p, out);
    }
  }
})(join(root, 'src'));
