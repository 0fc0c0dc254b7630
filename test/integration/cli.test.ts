import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { baseConfig } from '../helpers/payd.ts';
import { payd } from '../helpers/cli.ts';

function workdir(t: import('node:test').TestContext, config?: object) {
  const dir = mkdtempSync(join(tmpdir(), 'payd-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  if (config) writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
  return dir;
}

test('init --yes writes a valid config and database, and never overwrites without --force', async (t) => {
  const dir = workdir(t);
  const first = await payd(['init', '--yes'], { cwd: dir });
  assert.equal(first.code, 0, first.err);
  const file = join(dir, 'payd.config.json');
  const written = readFileSync(file, 'utf8');
  assert.ok(existsSync(join(dir, 'data', 'payd.sqlite')));
  writeFileSync(file, written.replace('8080', '9090'));
  const again = await payd(['init', '--yes'], { cwd: dir });
  assert.equal(again.code, 1);
  assert.match(again.err, /already exists; use --force/);
  assert.match(readFileSync(file, 'utf8'), /9090/, 'unchanged without --force');
  assert.equal((await payd(['init', '--yes', '--force'], { cwd: dir })).code, 0);
  assert.doesNotMatch(readFileSync(file, 'utf8'), /9090/);
  // The written config loads: migrate (and every command) accepts it.
  assert.equal((await payd(['migrate'], { cwd: dir })).code, 0);
});

test('config errors name their path and exit 2', async (t) => {
  const dir = workdir(t);
  const cases: [object | string, RegExp][] = [
    ['{ not json', /not valid JSON/],
    [{ servr: {} }, /servr: unknown key/],
    [{ server: { port: 'x' } }, /server\.port: expected a number/],
    [{ methods: { UPI: { vpa: 'bad', payeeName: 'x', imap: { host: 'h', user: 'u', password: { env: 'NOPE' } }, accounts: [{ bank: 'hdfc', accountEnding: '4321' }] } } }, /methods\.UPI\.vpa: expected a UPI VPA/],
    [{ methods: { UPI: { vpa: 'shop@hdfc', payeeName: 'x', imap: { host: 'h', port: 'x', user: 'u', password: 'p' }, accounts: [{ bank: 'hdfc', accountEnding: '4321' }] } } }, /methods\.UPI\.imap\.port: expected a number/],
    [{ methods: { USDT_TRC20: { address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u' } } }, /methods\.USDT_TRC20\.address: expected a TRON base58check address/],
    [{ methods: { SOL: { wallet: '0xdeadbeef' } } }, /methods\.SOL\.wallet: expected a Solana public key/],
    [{ methods: { SOL: { wallet: '11111111111111111111111111111111', pollSecs: 1 } } }, /methods\.SOL\.pollSecs: unknown key/],
  ];
  for (const [config, message] of cases) {
    const file = join(dir, 'c.json');
    writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
    const r = await payd(['migrate', '--config', file], { cwd: dir });
    assert.equal(r.code, 2, `${JSON.stringify(config)}: ${r.err}`);
    assert.match(r.err, message);
  }
  const missing = await payd(['intents', 'list', '--config', join(dir, 'nope.json')], { cwd: dir });
  assert.equal(missing.code, 2);
  assert.match(missing.err, /does not exist/);
  // A secret from a file (systemd credentials) resolves relative to the config file.
  writeFileSync(join(dir, 'imap.pw'), 's3cret\n');
  writeFileSync(join(dir, 'ok.json'), JSON.stringify({ methods: { UPI: { vpa: 'shop@hdfc', payeeName: 'x', imap: { host: 'h', user: 'u', password: { file: 'imap.pw' } }, alertRecipients: ['alerts@example.com'], accounts: [{ bank: 'hdfc', accountEnding: '4321' }] } } }));
  assert.equal((await payd(['migrate', '--config', 'ok.json'], { cwd: dir })).code, 0);
});

test('usage errors exit 2 with a message', async (t) => {
  const dir = workdir(t);
  for (const args of [['bogus'], ['intents', 'show'], ['intents', 'list', '--limit', '0'], ['intents', 'list', '--currency', 'BTC'], ['merchant', 'create'], ['webhooks', 'replay'], ['serve', '--no-workers', '--workers-only']]) {
    const r = await payd(args, { cwd: dir });
    assert.equal(r.code, 2, `${args.join(' ')} → ${r.code}: ${r.err}`);
    assert.ok(r.err.length > 0);
  }
  assert.equal((await payd(['--help'], { cwd: dir })).code, 0);
});

test('merchant lifecycle from the CLI, with --config after the subcommand', async (t) => {
  const dir = workdir(t);
  const cfg = join(dir, 'live.json');
  writeFileSync(cfg, JSON.stringify({ database: { file: 'db/payd.sqlite' } }));
  const created = await payd(['merchant', 'create', '--name', 'Chai Shop', '--webhook-url', 'https://shop.example.com/hooks', '--json', '--config', cfg], { cwd: dir });
  assert.equal(created.code, 0, created.err);
  const c = created.json();
  assert.deepEqual(Object.keys(c).sort(), ['client_id', 'client_secret', 'name', 'webhook_secret', 'webhook_url']);
  assert.match(c.client_secret, /^sk_live_[A-Za-z0-9_-]{43}$/);
  assert.match(c.webhook_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const list = (await payd(['--config', cfg, 'merchant', 'list', '--json'], { cwd: dir })).json();
  assert.deepEqual(list.map((m: any) => [m.client_id, m.status]), [[c.client_id, 'active']]);
  assert.equal(JSON.stringify(list).includes(c.client_secret), false, 'list never shows secrets');

  const bad = await payd(['merchant', 'set-webhook', c.client_id, '--url', 'http://shop.example.com/hooks', '--config', cfg], { cwd: dir });
  assert.equal(bad.code, 2);
  assert.match(bad.err, /must use https/);
  const ftp = await payd(['merchant', 'set-webhook', c.client_id, '--url', 'ftp://x', '--config', cfg], { cwd: dir });
  assert.equal(ftp.code, 2);
  // Loopback (the daemon's own host) is the operator's opt-in, not any merchant's.
  const loop = await payd(['merchant', 'set-webhook', c.client_id, '--url', 'http://127.0.0.1:9/h', '--config', cfg], { cwd: dir });
  assert.equal(loop.code, 2);
  assert.match(loop.err, /webhooks\.allowLoopback/);
  writeFileSync(cfg, JSON.stringify({ database: { file: 'db/payd.sqlite' }, webhooks: { allowLoopback: true } }));
  assert.equal((await payd(['merchant', 'set-webhook', c.client_id, '--url', 'http://127.0.0.1:9/h', '--config', cfg], { cwd: dir })).code, 0);

  const rotated = await payd(['merchant', 'rotate-secret', c.client_id, '--json', '--config', cfg], { cwd: dir });
  assert.notEqual(rotated.json().client_secret, c.client_secret);
  assert.equal((await payd(['merchant', 'revoke', c.client_id, '--config', cfg], { cwd: dir })).code, 0);
  const after = (await payd(['merchant', 'list', '--json', '--config', cfg], { cwd: dir })).json();
  assert.equal(after[0].status, 'revoked');
  const unknown = await payd(['merchant', 'revoke', '5b0e6c1e-2f0b-4b8a-9a57-3f6f1d2c9e10', '--config', cfg], { cwd: dir });
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /no merchant/);
  // Sandbox merchants live in the sandbox database only.
  const sb = (await payd(['merchant', 'create', '--name', 'Test', '--sandbox', '--json', '--config', cfg], { cwd: dir })).json();
  assert.match(sb.client_secret, /^sk_test_/);
  assert.equal((await payd(['merchant', 'list', '--json', '--config', cfg], { cwd: dir })).json().length, 1);
  assert.equal((await payd(['merchant', 'list', '--json', '--sandbox', '--config', cfg], { cwd: dir })).json().length, 1);
});

test('intents settle, show, payments and webhooks from the CLI; settling twice is refused', async (t) => {
  const dir = workdir(t);
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(baseConfig(dir)));
  const { createApp } = await import('../../src/app/index.ts');
  const { loadConfigFile } = await import('../../src/methods/load-config.ts');
  const { silentLogger } = await import('../../src/log/index.ts');
  const { systemClock, systemRandom } = await import('../../src/system.ts');
  const app = await createApp({ config: loadConfigFile(join(dir, 'payd.config.json'), {}), clock: systemClock, random: systemRandom, log: silentLogger() });
  const cred = await app.merchants.create({ name: 'Shop', webhookUrl: 'http://127.0.0.1:1/hook' });
  const merchant = await app.merchants.get(cred.client_id);
  const intent = await app.intents.create(merchant, { amount: 250, currency: 'UPI', order_id: 'cli-1' });
  await app.close();

  const settle = await payd(['intents', 'settle', intent.intent_id, '--tx', '998877665544', '--note', 'paid in cash'], { cwd: dir });
  assert.equal(settle.code, 0, settle.err);
  const twice = await payd(['intents', 'settle', intent.intent_id, '--tx', '998877665545'], { cwd: dir });
  assert.equal(twice.code, 1);
  assert.match(twice.err, /already settled/);

  const shown = (await payd(['intents', 'show', intent.intent_id, '--json'], { cwd: dir })).json();
  assert.equal(shown.status, 'settled');
  assert.equal(shown.transaction_hash, '998877665544');
  assert.equal(shown.payments.length, 1);
  assert.equal(shown.payments[0].note, 'paid in cash');
  assert.deepEqual(shown.events.map((e: any) => e.type), ['payment.success']);
  const listed = (await payd(['intents', 'list', '--status', 'settled', '--json'], { cwd: dir })).json();
  assert.deepEqual(listed.map((i: any) => i.intent_id), [intent.intent_id]);
  assert.equal((await payd(['payments', 'list', '--unmatched', '--json'], { cwd: dir })).json().length, 0);

  const eventId = shown.events[0].event_id;
  const ev = (await payd(['webhooks', 'show', eventId, '--json'], { cwd: dir })).json();
  assert.equal(ev.body.data.intent_id, intent.intent_id);
  const replay = await payd(['webhooks', 'replay', eventId], { cwd: dir });
  assert.equal(replay.code, 0);
  assert.match(replay.out, /queued 1 event/);
  assert.equal((await payd(['webhooks', 'show', 'evt_missing'], { cwd: dir })).code, 1);
  const test = await payd(['webhooks', 'test', cred.client_id], { cwd: dir });
  assert.equal(test.code, 1, 'nothing listens on port 1');
  assert.match(test.err, /not delivered/);
  // Tried once, not left to be retried for days.
  const tests = (await payd(['webhooks', 'list', '--json'], { cwd: dir })).json().filter((ev: any) => ev.type === 'webhook.test');
  assert.deepEqual(tests.map((ev: any) => [ev.status, ev.attempts]), [['failed', 1]]);
});
