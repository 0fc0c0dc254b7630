// Runs every *.test.ts under test/ through tsx with node:test.
// Node 20's `node --test <dir>` can silently run nothing, so we list files ourselves and fail on none.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filter = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') continue;
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(relative(root, p));
  }
})(join(root, 'test'));

// The whole suite runs real Dovecot, Chromium, nginx, PostgreSQL…: say what is missing before any
// test runs, instead of a failure deep inside one. A subset only warns (unit tests need none of it).
const missing = readFileSync(join(root, '.ci/system-packages'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() && !line.startsWith('#'))
  .map((line) => line.split('\t'))
  .filter(([, check]) => spawnSync('sh', ['-c', check], { stdio: 'ignore' }).status !== 0)
  .map(([pkg]) => pkg);
if (missing.length > 0) {
  const say = filter.length ? console.warn : console.error;
  say(`npm test: the suite needs these Debian packages, not installed here: ${missing.join(' ')}`);
  say('  install them and run the suite as CI does, as root on Debian: bash .ci/run   (or: apt-get install ' + missing.join(' ') + ')');
  if (!filter.length) process.exit(1);
}

// Tests that start bin/payd as a real process run dist/: build it first (esbuild, ~1 s).
const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('build failed');
  process.exit(1);
}

const selected = filter.length ? files.filter((f) => filter.some((x) => f.includes(x))) : files;
if (selected.length === 0) {
  console.error(`no test files found${filter.length ? ' matching ' + filter.join(' ') : ''}`);
  process.exit(1);
}
// 300 s per test and per file: on the shared 2-core machine (load 30-40) the daemon file's four
// real-process tests alone take over 120 s; a hung test still fails.
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...selected], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
