// /readyz with a revoked mailbox refresh token: UPI is reported down, the reason says what to do.
// Real Dovecot (oauth2 passdb) and the local OAuth server; the token is revoked before payd starts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeOAuth } from '../fakes/oauth-provider.ts';
import { startDovecot } from '../helpers/dovecot.ts';
import { startPayd } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';

test('/readyz: a revoked mailbox refresh token turns UPI down (503) with the reason and the command to run', async (t) => {
  const fake = await startFakeOAuth();
  t.after(() => fake.close());
  const dovecot = await startDovecot({ oauth2: { introspectionUrl: fake.introspectionUrl } });
  t.after(() => dovecot.dispose());
  const dir = mkdtempSync(join(tmpdir(), 'payd-oauth-readyz-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const refreshToken = fake.issueRefreshToken();
  fake.revoke(refreshToken);
  const p = await startPayd({
    dir,
    workers: true,
    sources: 'configured',
    rawConfig: {
      server: { host: '127.0.0.1', port: 0 },
      database: { file: join(dir, 'payd.sqlite') },
      methods: {
        UPI: {
          vpa: 'shop@hdfcbank',
          payeeName: 'Example Shop',
          // A re-sync every second: "3 intervals" without a completed sync is then a few seconds.
          imap: {
            host: dovecot.host, port: dovecot.port, secure: false, user: dovecot.user, resyncSeconds: 600,
            auth: { type: 'oauth2', provider: 'microsoft', tokenUrl: fake.tokenUrl, clientId: fake.clientId, clientSecret: fake.clientSecret, refreshToken },
          },
          alertRecipients: ['merchant.payd@example.com'],
          accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
        },
      },
    },
  });
  t.after(() => p.close());
  // 503 from the start (no completed cycle yet); the first refused token request tells why.
  const down = await waitFor(async () => {
    const res = await fetch(p.url + '/readyz');
    const body = (await res.json()) as any;
    return res.status === 503 && body.sources.UPI.state !== 'starting' && body;
  }, 20_000, '/readyz to say why UPI is down (long before 3 × resyncSeconds could make UPI stale)');
  assert.deepEqual(down.failing, ['UPI']);
  assert.equal(down.sources.UPI.state, 'blocked');
  assert.match(down.sources.UPI.last_error, /refused the OAuth refresh token for payd \(invalid_grant: .*\): it was revoked or has expired\. Run `payd mailbox authorize --provider microsoft`/);
  assert.ok(!JSON.stringify(down).includes(refreshToken));
  assert.equal(fake.introspected.length, 0, 'no access token was ever presented to the server');
});

test('/readyz: a mailbox OAuth client the provider refuses (invalid_client: a wrong client secret) is blocked at once (503), not retried into "ready"', async (t) => {
  const fake = await startFakeOAuth();
  t.after(() => fake.close());
  const dir = mkdtempSync(join(tmpdir(), 'payd-oauth-readyz-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const refreshToken = fake.issueRefreshToken();
  const wrongSecret = 'not-the-client-secret-42';
  const p = await startPayd({
    dir,
    workers: true,
    sources: 'configured',
    rawConfig: {
      server: { host: '127.0.0.1', port: 0 },
      database: { file: join(dir, 'payd.sqlite') },
      methods: {
        UPI: {
          vpa: 'shop@hdfcbank',
          payeeName: 'Example Shop',
          // No IMAP server is needed: the token request fails first. Re-syncs every 10 min: never stale here.
          imap: {
            host: '127.0.0.1', port: 1, secure: false, user: 'payd', resyncSeconds: 600,
            auth: { type: 'oauth2', provider: 'microsoft', tokenUrl: fake.tokenUrl, clientId: fake.clientId, clientSecret: wrongSecret, refreshToken },
          },
          alertRecipients: ['merchant.payd@example.com'],
          accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
        },
      },
    },
  });
  t.after(() => p.close());
  const down = await waitFor(async () => {
    const res = await fetch(p.url + '/readyz');
    const body = (await res.json()) as any;
    return body.sources?.UPI?.last_error && { status: res.status, body };
  }, 20_000, 'the first refused token request');
  assert.equal(down.status, 503);
  assert.deepEqual(down.body.failing, ['UPI']);
  assert.equal(down.body.sources.UPI.state, 'blocked');
  assert.match(down.body.sources.UPI.last_error, /refused the OAuth client .*invalid_client.*check methods\.UPI\.imap\.auth\.clientId and clientSecret/);
  assert.ok(!JSON.stringify(down.body).includes(wrongSecret));
  assert.ok(!JSON.stringify(down.body).includes(refreshToken));
});
