// The mailbox OAuth token provider against a local OAuth server over real HTTP (undici):
// caching until shortly before expiry, one request for concurrent callers, a slow endpoint,
// refusals worded for the operator, and rotation without a store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Secret } from '../../src/config/secret.ts';
import { createLogger } from '../../src/log/index.ts';
import { createAccessTokens, type OAuthSettings } from '../../src/methods/upi/oauth/token-provider.ts';
import { startFakeOAuth, type FakeOAuth } from '../fakes/oauth-provider.ts';
import { testClock } from '../helpers/payd.ts';

describe('mailbox OAuth access tokens', () => {
  let fake: FakeOAuth;
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', write: (l) => void lines.push(l) });
  before(async () => {
    fake = await startFakeOAuth({ accessTtlSeconds: 3600 });
  });
  after(() => fake.close());

  const settings = (o: Partial<OAuthSettings> = {}): OAuthSettings => ({
    user: 'alerts@example.com',
    provider: 'google',
    tokenUrl: fake.tokenUrl,
    clientId: fake.clientId,
    clientSecret: new Secret(fake.clientSecret!),
    refreshToken: new Secret(fake.issueRefreshToken()),
    scope: 'https://mail.google.com/',
    ...o,
  });

  test('an access token is reused until shortly before it expires, then refreshed', async () => {
    const clock = testClock(1_000_000);
    const tokens = createAccessTokens(settings(), { clock, log });
    const start = fake.refreshGrants;
    const a = await tokens.get();
    clock.advance(3_500_000); // 58 min 20 s of a 60 min token: still good
    assert.equal(await tokens.get(), a);
    assert.equal(fake.refreshGrants, start + 1);
    clock.advance(50_000); // inside the last minute
    const b = await tokens.get();
    assert.notEqual(b, a);
    assert.equal(fake.refreshGrants, start + 2);
    tokens.invalidate();
    assert.notEqual(await tokens.get(), b);
    assert.equal(fake.refreshGrants, start + 3);
  });

  test('concurrent callers share one refresh', async () => {
    const tokens = createAccessTokens(settings(), { clock: testClock(), log });
    const start = fake.refreshGrants;
    fake.delayMs = 200;
    try {
      const got = await Promise.all([tokens.get(), tokens.get(), tokens.get()]);
      assert.equal(new Set(got).size, 1);
      assert.equal(fake.refreshGrants, start + 1);
    } finally {
      fake.delayMs = 0;
    }
  });

  test('a slow token endpoint fails within the time limit with a clear reason, and works once it answers in time', async () => {
    const tokens = createAccessTokens(settings(), { clock: testClock(), log, timeoutMs: 400 });
    fake.delayMs = 2_000;
    try {
      await assert.rejects(tokens.get(), (e: Error) => {
        assert.match(e.message, /^OAuth token endpoint http:\/\/127\.0\.0\.1:\d+\/token did not answer within 0\.4 s$/);
        return true;
      });
      fake.delayMs = 100;
      assert.match(await tokens.get(), /^ya29\./);
    } finally {
      fake.delayMs = 0;
    }
  });

  test('refusals name the cause and what to change', async () => {
    const wrongClient = createAccessTokens(settings({ clientSecret: new Secret('not-the-secret') }), { clock: testClock(), log });
    await assert.rejects(wrongClient.get(), /refused the OAuth client payd-test-client \(invalid_client: The OAuth client was not found\.\): check methods\.UPI\.imap\.auth\.clientId and clientSecret/);
    const s = settings({ provider: 'microsoft' });
    fake.revoke(s.refreshToken.reveal());
    await assert.rejects(
      createAccessTokens(s, { clock: testClock(), log }).get(),
      /refused the OAuth refresh token for alerts@example\.com \(invalid_grant: .*\): it was revoked or has expired\. Run `payd mailbox authorize --provider microsoft`/,
    );
    const down = createAccessTokens(settings({ tokenUrl: 'http://127.0.0.1:1/token' }), { clock: testClock(), log });
    await assert.rejects(down.get(), /cannot reach OAuth token endpoint http:\/\/127\.0\.0\.1:1\/token: ECONNREFUSED/);
  });

  test('without a store, a rotated refresh token is used for the next refresh (the old one is retired)', async () => {
    const tokens = createAccessTokens(settings(), { clock: testClock(), log });
    fake.rotate = true;
    try {
      await tokens.get();
      tokens.invalidate();
      await tokens.get(); // would be invalid_grant with the retired configured token
      tokens.invalidate();
      await tokens.get();
    } finally {
      fake.rotate = false;
    }
    const all = lines.join('\n');
    for (const t of [...fake.issued, fake.clientSecret!]) assert.ok(!all.includes(t), 'a token reached the log');
  });
});

describe('mailbox OAuth rotation shared by two processes', () => {
  test('a refresh token rotated by one process (doctor) is used by the other (daemon), not the retired one', async () => {
    const fake = await startFakeOAuth();
    try {
      const rows = new Map<string, { configured: string; token: string }>();
      // The store's contract (services/mailbox-tokens.ts), in memory: both "processes" share it.
      const store = {
        current: async (key: string, configured: string) => (rows.get(key)?.configured === configured ? rows.get(key)!.token : configured),
        save: async (key: string, configured: string, token: string) => void rows.set(key, { configured, token }),
      };
      const s: OAuthSettings = { user: 'u', tokenUrl: fake.tokenUrl, clientId: fake.clientId, clientSecret: new Secret(fake.clientSecret!), refreshToken: new Secret(fake.issueRefreshToken()), scope: '' };
      const log = createLogger({ write: () => {} });
      const daemon = createAccessTokens(s, { clock: testClock(), log, store });
      const doctor = createAccessTokens(s, { clock: testClock(), log, store });
      fake.rotate = true;
      await daemon.get(); // rt1 → rt2
      await doctor.get(); // rt2 → rt3, rt2 retired
      daemon.invalidate();
      assert.match(await daemon.get(), /^ya29\./); // with rt3
      assert.equal(fake.refreshGrants, 3);
    } finally {
      await fake.close();
    }
  });
});
