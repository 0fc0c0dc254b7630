// Builds dist/: one ESM and one CommonJS bundle (esbuild), and the type declarations (tsc) for
// each, the CommonJS copy under a package.json that marks its folder CommonJS.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
for (const [format, dir] of [['esm', 'esm'], ['cjs', 'cjs']]) {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['src/index.ts'],
    outfile: join(dist, dir, 'index.js'),
    bundle: true,
    format,
    platform: 'neutral',
    target: 'es2022',
    logLevel: 'warning',
  });
}
writeFileSync(join(dist, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), '--outDir', join(dist, 'esm')], { stdio: 'inherit' });
for (const name of readdirSync(join(dist, 'esm'))) if (name.endsWith('.d.ts')) copyFileSync(join(dist, 'esm', name), join(dist, 'cjs', name));
