// Admin commands start at once: the built CLI loads only what a command needs. Which libraries
// a process loaded is read from the bundle's own source maps (each dist/ chunk lists the files
// it was built from), so the test holds whatever esbuild names the chunks.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runPayd, workdir } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TRACE_LOADS = fileURLToPath(new URL('../helpers/trace-loads.mjs', import.meta.url));
// Loaded by `serve` (HTTP, webhooks, payment sources) or at first use (a passkey ceremony, an
// e-mail), never by an admin command.
const SERVE_ONLY = ['undici', 'h3', 'srvx', 'crossws', 'imapflow', 'mailauth', 'mailparser', '@solana/web3.js', 'tronweb', 'viem', 'pg', '@simplewebauthn/server', '@peculiar/x509', 'nodemailer'];

/** Runs the built `bin/payd` and answers the npm packages its bundle chunks were built from. */
async function packagesLoaded(dir: string, args: string[]): Promise<Set<string>> {
  const trace = join(dir, `loads-${args.join('-').replace(/\W+/g, '_')}.txt`);
  const r = await runPayd(args, dir, { NODE_OPTIONS: `--import=${TRACE_LOADS}`, PAYD_TRACE_LOADS: trace });
  assert.equal(r.status, 0, r.stderr);
  const files = readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((u) => fileURLToPath(u));
  assert.ok(files.some((f) => f.startsWith(join(ROOT, 'dist'))), `ran the build in dist/:\n${files.join('\n')}`);
  const packages = new Set<string>();
  for (const f of files) {
    if (!existsSync(`${f}.map`)) continue;
    for (const source of JSON.parse(readFileSync(`${f}.map`, 'utf8')).sources as string[]) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
      if (name) packages.add(name);
    }
  }
  return packages;
}

test('--help and admin commands load neither the HTTP stack nor any payment method library, with UPI, USDT_TRC20, USDT_SOL, SOL and USDC_BASE configured', async (t) => {
  const closed = 'http://127.0.0.1:9';
  const dir = workdir(t, {
    database: { file: 'data/payd.sqlite' },
    methods: {
      UPI: { vpa: 'shop@hdfcbank', payeeName: 'Shop', imap: { host: '127.0.0.1', port: 9, secure: false, user: 'u', password: 'p' }, alertRecipients: ['shop@example.com'], accounts: [{ bank: 'hdfc', accountEnding: '4321' }] },
      USDT_TRC20: { address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', apiUrl: closed },
      SOL: { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', rpcUrl: closed },
      USDT_SOL: { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', rpcUrl: closed },
      USDC_BASE: { address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', rpcUrl: closed },
    },
  });
  const help = await packagesLoaded(dir, ['--help']);
  assert.ok(help.has('commander'));
  const heavy = [...SERVE_ONLY, 'kysely', 'better-sqlite3', 'pino', 'prom-client'];
  assert.deepEqual(heavy.filter((p) => help.has(p)), [], `--help loaded ${[...help].join(', ')}`);
  const made = await runPayd(['merchant', 'create', '--name', 'Shop'], dir);
  assert.equal(made.status, 0, made.stderr);
  for (const args of [['intents', 'list'], ['merchant', 'list']]) {
    const loaded = await packagesLoaded(dir, args);
    assert.ok(loaded.has('kysely'), `${args.join(' ')} reads the database`);
    assert.deepEqual(SERVE_ONLY.filter((p) => loaded.has(p)), [], `${args.join(' ')} loaded ${[...loaded].join(', ')}`);
  }
});
