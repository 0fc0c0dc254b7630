// UPI mailbox sign-in with OAuth 2.0, end to end with real parts: a real Dovecot whose oauth2
// passdb validates every bearer token against the introspection endpoint of a local OAuth server
// (test/fakes/oauth-provider.ts), which also speaks the refresh-token grant. payd signs in with
// OAUTHBEARER/XOAUTH2, settles alerts, renews expired and refused tokens across server-side
// disconnects (as Microsoft 365 drops idle sessions), keeps a rotated refresh token sealed across
// a restart, reports a revoked one (source error and `payd doctor`), and never logs a token.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/log/index.ts';
import { startFakeOAuth, type FakeOAuth } from '../fakes/oauth-provider.ts';
import { hdfcCredit, signingKit } from '../helpers/bank-alerts.ts';
import { payd } from '../helpers/cli.ts';
import { dnsStub } from '../helpers/dns-stub.ts';
import { startDovecot, type Dovecot } from '../helpers/dovecot.ts';
import { baseConfig, startPayd, type PaydHarness } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';

describe('UPI mailbox with OAuth 2.0 against Dovecot', () => {
  const kit = signingKit();
  const dns = dnsStub(kit.zone);
  const dir = mkdtempSync(join(tmpdir(), 'payd-oauth-'));
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', write: (l) => void lines.push(l) });
  let fake: FakeOAuth;
  let dovecot: Dovecot;
  let p: PaydHarness;
  let m: Awaited<ReturnType<PaydHarness['merchant']>>;
  let firstRefresh: string;
  let config: Record<string, any>;
  let utr = 632612340000;
  const LABEL = 'Bank alerts/UPI';

  before(async () => {
    // Short-lived access tokens: the first one expires while its IMAP session is still open.
    fake = await startFakeOAuth({ accessTtlSeconds: 3 });
    dovecot = await startDovecot({ oauth2: { introspectionUrl: fake.introspectionUrl } });
    firstRefresh = fake.issueRefreshToken();
    // Alerts are read from a Gmail-style nested label with a space, not from INBOX.
    await dovecot.createMailbox(LABEL);
    config = baseConfig(dir, {
      methods: {
        USDT_TRC20: undefined,
        SOL: undefined,
        USDT_SOL: undefined,
        UPI: {
          vpa: 'shop@hdfcbank',
          payeeName: 'Example Shop',
          imap: {
            host: dovecot.host,
            port: dovecot.port,
            secure: false,
            user: dovecot.user,
            mailbox: LABEL,
            auth: { type: 'oauth2', tokenUrl: fake.tokenUrl, clientId: fake.clientId, clientSecret: fake.clientSecret, refreshToken: firstRefresh, scope: 'https://mail.google.com/' },
          },
          alertRecipients: ['merchant.payd@example.com'],
          accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
          dkim: { required: true, dnsServers: [await dns.start()] },
        },
      },
    });
    writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
    p = await startPayd({ dir, rawConfig: config, workers: true, sources: 'configured', log });
    m = await p.merchant('Chai shop');
  });
  after(async () => {
    await p?.close();
    await dovecot?.dispose();
    await fake?.close();
    await dns.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Creates an intent, drops a signed alert for it into the mailbox and waits for settlement. */
  const payAndSettle = async (order: string, rupees: string, what: string) => {
    const intent = (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: Number(rupees), currency: 'UPI', order_id: order }, headers: m.headers })).body;
    assert.equal(intent.pay_amount, Number(rupees), 'no offset: the alert amount must match');
    const ref = String(++utr);
    await dovecot.append(await kit.sign(hdfcCredit({ rupees, utr: ref, account: '4321' })), { mailbox: LABEL });
    await waitOrExplain(async () => (await p.app.intents.get(intent.intent_id)).status === 'settled', 15_000, what);
    assert.equal((await p.app.intents.get(intent.intent_id)).transaction_hash, ref);
  };
  /** Waits for a condition; on timeout the error carries payd's and Dovecot's recent log lines. */
  const waitOrExplain = async <T>(fn: () => Promise<T | undefined | null | false>, ms: number, what: string): Promise<T> => {
    try {
      return await waitFor(fn, ms, what);
    } catch (err) {
      const tail = (text: string) => text.split('\n').slice(-12).join('\n');
      throw new Error(`${(err as Error).message}\n--- payd log:\n${tail(lines.join('\n'))}\n--- dovecot log:\n${tail(dovecot.log())}`);
    }
  };
  const logins = () => (dovecot.log().match(/imap-login: Info: Login: user=<payd>, method=(OAUTHBEARER|XOAUTH2)/g) ?? []).length;

  test('payd signs in with an access token from the refresh-token grant and settles an alert filed under a label', async () => {
    await payAndSettle('oauth-1', '101.11', 'the first alert to settle');
    assert.equal(fake.refreshGrants, 1, 'one refresh for the first connection');
    assert.ok(logins() >= 1, 'Dovecot logged an OAuth login');
    assert.ok(fake.introspected.includes(fake.issued[1]), 'Dovecot checked the issued access token');
    const doctor = await payd(['doctor', '--config', join(dir, 'payd.config.json')], { cwd: dir });
    assert.equal(doctor.code, 0, doctor.out + doctor.err);
    assert.match(doctor.out, /ok +upi-imap: IMAP payd@127\.0\.0\.1:\d+ OK \(signed in with OAuth 2\.0\); mailbox "Bank alerts\/UPI" holds 1 messages/);
  });

  test('the token expires mid-session; after a server-side disconnect payd reconnects with a fresh token', async () => {
    const grants = fake.refreshGrants;
    const before = logins();
    await new Promise((r) => setTimeout(r, 3_200)); // the first access token is now expired
    fake.accessTtlSeconds = 3600;
    await dovecot.kick(); // as Microsoft 365 drops an idle session
    await waitOrExplain(async () => logins() > before, 15_000, 'a new OAuth login after the kick');
    assert.equal(fake.refreshGrants, grants + 1, 'refreshed before reconnecting, not after a refused login');
    assert.doesNotMatch(dovecot.log(), /auth.*failed/i, 'the expired token was never presented');
    await payAndSettle('oauth-2', '102.22', 'the alert after reconnecting');
  });

  test('a token the server refuses before its expiry is refreshed once and the login retried', async () => {
    const grants = fake.refreshGrants;
    const before = logins();
    fake.expireAccessTokens(); // payd's cached token still looks valid for an hour
    await dovecot.kick();
    await waitOrExplain(async () => logins() > before, 15_000, 'a new OAuth login after the refusal');
    assert.equal(fake.refreshGrants, grants + 1, 'exactly one refresh after the refused login');
    assert.match(dovecot.log(), /auth.*failed/i, 'the refused login is in the server log');
    await payAndSettle('oauth-3', '103.33', 'the alert after the retried login');
  });

  test('a rotated refresh token is kept sealed in the database and used after a restart', async () => {
    fake.rotate = true;
    fake.expireAccessTokens();
    const before = logins();
    await dovecot.kick();
    await waitOrExplain(async () => logins() > before, 15_000, 'a login with the rotated grant');
    fake.rotate = false;
    const rotated = fake.issued.at(-1)!; // the grant issues the access token, then the new refresh token
    assert.match(rotated, /^1\/\/rt-/);
    const row = await p.app.db.selectFrom('mailbox_oauth_tokens').selectAll().executeTakeFirstOrThrow();
    assert.ok(row.refresh_token_sealed.startsWith('v1.'), 'sealed');
    assert.ok(!row.refresh_token_sealed.includes(rotated));
    await p.close();
    for (const f of ['payd.sqlite', 'payd.sqlite-wal']) {
      try {
        assert.ok(!readFileSync(join(dir, f)).includes(rotated), `${f} holds the refresh token in clear`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    // The config still names the first refresh token, which the provider has retired.
    const grants = fake.refreshGrants;
    p = await startPayd({ dir, rawConfig: config, workers: true, sources: 'configured', log });
    await payAndSettle('oauth-4', '104.44', 'an alert after the restart');
    assert.equal(fake.refreshGrants, grants + 1);
    assert.doesNotMatch(lines.join('\n'), /refused the OAuth refresh token/, 'the retired configured token was never used');
  });

  test('a revoked refresh token: the source fails with a clear reason and `payd doctor` says what to do', async () => {
    for (const t of fake.issued) if (t.startsWith('1//')) fake.revoke(t);
    fake.expireAccessTokens();
    const mark = lines.length;
    await dovecot.kick();
    const line = await waitFor(async () => lines.slice(mark).find((l) => l.includes('refused the OAuth refresh token')), 15_000, 'the source to report the revoked token');
    const entry = JSON.parse(line);
    assert.equal(entry.level, 'warn');
    assert.match(entry.error, /refused the OAuth refresh token for payd \(invalid_grant: Token has been expired or revoked\.\): it was revoked or has expired\. Run `payd mailbox authorize`/);

    const r = await payd(['doctor', '--config', join(dir, 'payd.config.json')], { cwd: dir });
    assert.notEqual(r.code, 0);
    assert.match(r.out, /FAIL {2}upi-imap: the mail provider refused the OAuth refresh token for payd .*payd mailbox authorize.*methods\.UPI\.imap\.auth\.refreshToken/);
    for (const t of fake.issued) assert.ok(!r.out.includes(t) && !r.err.includes(t), 'doctor printed a token');
  });

  test('no access token, refresh token or client secret ever reached a log line', () => {
    const all = lines.join('\n');
    assert.ok(lines.length > 5, 'the test captured the logs');
    assert.match(all, /refresh token rotated/, 'the rotation was logged (without the token)');
    for (const t of [...fake.issued, fake.clientSecret!]) assert.ok(!all.includes(t), `a secret reached the log: ${t.slice(0, 8)}…`);
  });
});
