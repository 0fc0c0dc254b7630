import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfigFile, parseConfig } from '../../src/config/load.ts';

test('embedded defaults: a config with nothing in it is valid and enables no method', () => {
  const c = parseConfig({}, '/srv/payd', {});
  assert.equal(c.server.port, 8080);
  assert.equal(c.database.file, '/srv/payd/data/payd.sqlite');
  assert.deepEqual(c.webhooks.retrySchedule, [5, 300, 1800, 7200, 18000, 36000, 36000, 86400, 86400]);
  assert.deepEqual(c.amounts, {});
});

test('the shipped example config validates, secrets from systemd credentials, and never prints them', () => {
  const creds = mkdtempSync(join(tmpdir(), 'creds-'));
  for (const f of ['imap-password', 'trongrid-key', 'master-key']) writeFileSync(join(creds, f), `${f}-value\n`);
  const file = fileURLToPath(new URL('../../config/payd.config.example.json', import.meta.url));
  const c = loadConfigFile(file, { CREDENTIALS_DIRECTORY: creds });
  assert.equal(c.methods.UPI!.imap.password!.reveal(), 'imap-password-value');
  assert.equal(c.methods.USDT_TRC20!.apiKey!.reveal(), 'trongrid-key-value');
  assert.deepEqual(Object.keys(c.amounts).sort(), ['SOL', 'UPI', 'USDT_SOL', 'USDT_TRC20']);
  assert.equal(c.amounts.UPI!.minMinor, 100n);
  assert.equal(c.amounts.SOL!.stepMinor, 1000n);
  assert.doesNotMatch(JSON.stringify(c, (_k, v) => (typeof v === 'bigint' ? String(v) : v)), /-value/);
});

test('UPI alertRecipients: defaults to imap.user when that is an e-mail address, else it is required (named by path)', () => {
  const upi = (imap: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    methods: { UPI: { vpa: 'shop@hdfcbank', payeeName: 'Shop', imap: { host: 'h', password: 'p', ...imap }, accounts: [{ bank: 'hdfc', accountEnding: '4321' }], ...extra } },
  });
  const c = parseConfig(upi({ user: 'Alerts@Example.com' }), '/srv', {});
  assert.deepEqual(c.methods.UPI!.alertRecipients, ['Alerts@Example.com']);
  assert.equal(c.methods.UPI!.dkim.retryHours, 24);
  assert.throws(() => parseConfig(upi({ user: 'alerts' }), '/srv', {}), /methods\.UPI\.alertRecipients: is required when imap\.user is not an e-mail address/);
  const given = parseConfig(upi({ user: 'alerts' }, { alertRecipients: ['owner@gmail.com'], dkim: { retryHours: 2 } }), '/srv', {});
  assert.deepEqual(given.methods.UPI!.alertRecipients, ['owner@gmail.com']);
  assert.equal(given.methods.UPI!.dkim.retryHours, 2);
  assert.throws(() => parseConfig(upi({ user: 'alerts' }, { alertRecipients: ['not an address'] }), '/srv', {}), /methods\.UPI\.alertRecipients\.0: expected an e-mail address/);
});
