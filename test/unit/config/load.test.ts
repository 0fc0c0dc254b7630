import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfigFile, parseConfig } from '../../../src/methods/load-config.ts';

test('embedded defaults: a config with nothing in it is valid and enables no method', () => {
  const c = parseConfig({}, '/srv/payd', {});
  assert.equal(c.server.port, 8080);
  assert.equal(c.database.file, '/srv/payd/data/payd.sqlite');
  assert.deepEqual(c.webhooks.retrySchedule, [5, 300, 1800, 7200, 18000, 36000, 36000, 86400, 86400]);
  assert.deepEqual(c.amounts, {});
});

test('the shipped example config fails until its receiving addresses are edited, then validates without printing secrets', () => {
  const creds = mkdtempSync(join(tmpdir(), 'creds-'));
  for (const f of ['imap-password', 'trongrid-key', 'master-key']) writeFileSync(join(creds, f), `${f}-value\n`);
  const file = fileURLToPath(new URL('../../../config/payd.config.example.json', import.meta.url));
  // As shipped: every place money would go is a placeholder that payd refuses (a forgotten
  // edit must never send customers' money to an address from the docs).
  assert.throws(
    () => loadConfigFile(file, { CREDENTIALS_DIRECTORY: creds }),
    (e: Error) => {
      for (const path of ['methods.UPI.vpa', 'methods.UPI.accounts.0.accountEnding', 'methods.USDT_TRC20.address', 'methods.SOL.wallet', 'methods.USDT_SOL.wallet']) {
        assert.match(e.message, new RegExp(`${path.replace(/\./g, '\\.')}: `), path);
      }
      return true;
    },
  );
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(JSON.stringify(raw).match(/EDIT-ME/g)?.length, 5);
  // Edited, it validates (the rest of the example is a working config).
  raw.methods.UPI.vpa = 'chaishop@okhdfcbank';
  raw.methods.UPI.accounts[0].accountEnding = '7788';
  raw.methods.USDT_TRC20.address = 'TWiw9REQDT97WudRTTnw118xEFGc3HWwuM'; // a valid TRON checksum address
  raw.methods.SOL.wallet = raw.methods.USDT_SOL.wallet = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
  const edited = join(creds, 'payd.config.json');
  writeFileSync(edited, JSON.stringify(raw));
  const c = loadConfigFile(edited, { CREDENTIALS_DIRECTORY: creds });
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

test('database: url selects PostgreSQL (a secret reference), file keeps SQLite, both is an error naming the path; PostgreSQL needs a configured master key', () => {
  const sqlite = parseConfig({}, '/srv/payd', {});
  assert.equal(sqlite.database.url, undefined);
  assert.equal(sqlite.database.pool, 10);
  assert.equal(sqlite.database.statementTimeoutMs, 5000);

  const pg = parseConfig({ server: { masterKey: { env: 'KEY' } }, database: { url: { env: 'PAYD_DB' }, pool: 4, statementTimeoutMs: 2000 } }, '/srv/payd', { PAYD_DB: 'postgres://payd:pw@db:5432/payd' });
  assert.equal(pg.database.url!.reveal(), 'postgres://payd:pw@db:5432/payd');
  assert.equal(pg.database.pool, 4);
  assert.equal(pg.database.statementTimeoutMs, 2000);
  assert.doesNotMatch(JSON.stringify(pg), /pw@db/, 'the URL (with its password) is never printed');
  // The sandbox stays SQLite, beside where the default file would be.
  assert.equal(pg.database.file, '/srv/payd/data/payd.sqlite');

  assert.throws(() => parseConfig({ server: { masterKey: 'k' }, database: { file: 'x.sqlite', url: 'postgres://db/payd' } }, '/srv', {}), (e: Error) => {
    assert.match(e.message, /^database: set either database\.file \(SQLite\) or database\.url \(PostgreSQL\), not both/);
    return true;
  });
  assert.throws(() => parseConfig({ database: { url: 'postgres://db/payd' } }, '/srv', {}), /server\.masterKey: is required with database\.url \(PostgreSQL\): every node must use the same key/);
  assert.throws(() => parseConfig({ database: { pool: 0 } }, '/srv', {}), /database\.pool: /);
});

test('UPI accountEnding: the last 3 to 6 digits or the whole account number; anything else names the path', () => {
  const upi = (accountEnding: string) => ({
    methods: { UPI: { vpa: 'shop@indus', payeeName: 'Shop', imap: { host: 'h', user: 'a@example.com', password: 'p' }, accounts: [{ bank: 'indusind', accountEnding }] } },
  });
  for (const ok of ['321', '654321', '150123454321']) assert.equal(parseConfig(upi(ok), '/srv', {}).methods.UPI!.accounts[0].accountEnding, ok);
  for (const bad of ['21', '1234567', 'XX4321']) assert.throws(() => parseConfig(upi(bad), '/srv', {}), /methods\.UPI\.accounts\.0\.accountEnding: expected the last 3 to 6 digits of the account, or the whole account number/);
});

test('lag limits and the UPI silence alarm: defaults, errors named by path, and older configs with long intervals still valid', () => {
  const upi = (imap: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    methods: { UPI: { vpa: 'shop@hdfcbank', payeeName: 'Shop', imap: { host: 'h', user: 'a@example.com', password: 'p', ...imap }, accounts: [{ bank: 'hdfc', accountEnding: '4321' }], ...extra } },
  });
  const tron = (extra: Record<string, unknown> = {}) => ({ methods: { USDT_TRC20: { address: 'TJmmqjb1DK9TTZbQXzRQ2AuA94z4gKAPFh', ...extra } } });
  const sol = (extra: Record<string, unknown> = {}) => ({ methods: { SOL: { wallet: '11111111111111111111111111111112', ...extra } } });

  const u = parseConfig(upi(), '/srv', {}).methods.UPI!;
  assert.equal(u.maxLagSeconds, 300);
  assert.equal(u.imap.resyncSeconds, 120, 'a re-sync well inside the lag limit');
  assert.equal(u.expectAlertWithinHours, undefined, 'the silence alarm is off by default');
  assert.equal(parseConfig(upi({}, { expectAlertWithinHours: 24 }), '/srv', {}).methods.UPI!.expectAlertWithinHours, 24);
  assert.throws(() => parseConfig(upi({}, { expectAlertWithinHours: 0 }), '/srv', {}), /methods\.UPI\.expectAlertWithinHours: must be greater than 0/);
  // A config from before the limit, re-syncing every 10 min: the default grows with it instead of failing.
  assert.equal(parseConfig(upi({ resyncSeconds: 600 }), '/srv', {}).methods.UPI!.maxLagSeconds, 780);
  assert.throws(() => parseConfig(upi({ resyncSeconds: 600 }, { maxLagSeconds: 600 }), '/srv', {}), /methods\.UPI\.maxLagSeconds: must exceed imap\.resyncSeconds/);

  assert.equal(parseConfig(tron(), '/srv', {}).methods.USDT_TRC20!.maxLagSeconds, 120);
  assert.equal(parseConfig(sol(), '/srv', {}).methods.SOL!.maxLagSeconds, 120);
  assert.equal(parseConfig(tron({ pollSeconds: 60 }), '/srv', {}).methods.USDT_TRC20!.maxLagSeconds, 180);
  assert.equal(parseConfig(sol({ maxLagSeconds: 30 }), '/srv', {}).methods.SOL!.maxLagSeconds, 30);
  assert.throws(() => parseConfig(tron({ pollSeconds: 30, maxLagSeconds: 30 }), '/srv', {}), /methods\.USDT_TRC20\.maxLagSeconds: must be greater than pollSeconds/);
});
