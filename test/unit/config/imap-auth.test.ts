// methods.UPI.imap: password (as before) or auth { type: "oauth2" } — exactly one, errors name the path;
// provider presets fill the token endpoint and scope from the providers' documentation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseConfig } from '../../../src/methods/load-config.ts';

const withImap = (imap: Record<string, unknown>) => ({
  methods: { UPI: { vpa: 'shop@hdfcbank', payeeName: 'Shop', imap: { host: 'imap.gmail.com', user: 'alerts@shop.example', ...imap }, accounts: [{ bank: 'hdfc', accountEnding: '4321' }] } },
});
const parse = (imap: Record<string, unknown>, env: Record<string, string> = {}) => parseConfig(withImap(imap), '/tmp', env).methods.UPI!.imap;
const fails = (imap: Record<string, unknown>, message: RegExp) => assert.throws(() => parse(imap), (e: Error) => (assert.match(e.message, message), true));

describe('config: IMAP sign-in', () => {
  test('google preset: Google token endpoint and the Gmail scope; secrets resolve from the environment', () => {
    const imap = parse(
      { auth: { type: 'oauth2', provider: 'google', clientId: '123.apps.googleusercontent.com', clientSecret: { env: 'CS' }, refreshToken: { env: 'RT' } } },
      { CS: 'GOCSPX-s', RT: '1//rt' },
    );
    assert.equal(imap.password, undefined);
    assert.equal(imap.auth?.tokenUrl, 'https://oauth2.googleapis.com/token');
    assert.equal(imap.auth?.scope, 'https://mail.google.com/');
    assert.equal(imap.auth?.refreshToken.reveal(), '1//rt');
    assert.equal(imap.auth?.clientSecret?.reveal(), 'GOCSPX-s');
    assert.doesNotMatch(JSON.stringify(imap), /1\/\/rt|GOCSPX/);
  });

  test('microsoft preset: public client (no secret), IMAP.AccessAsUser.All with offline_access; explicit keys win', () => {
    const ms = parse({ auth: { type: 'oauth2', provider: 'microsoft', clientId: 'c', refreshToken: 'r' } });
    assert.equal(ms.auth?.tokenUrl, 'https://login.microsoftonline.com/common/oauth2/v2.0/token');
    assert.equal(ms.auth?.scope, 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access');
    const tenant = parse({ auth: { type: 'oauth2', provider: 'microsoft', tokenUrl: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token', clientId: 'c', refreshToken: 'r' } });
    assert.match(tenant.auth!.tokenUrl, /contoso/);
    const custom = parse({ auth: { type: 'oauth2', tokenUrl: 'https://idp.example/token', clientId: 'c', refreshToken: 'r' } });
    assert.equal(custom.auth?.scope, '');
  });

  test('password alone works as before', () => {
    assert.equal(parse({ password: 'pw' }).password?.reveal(), 'pw');
  });

  test('exactly one of password and auth; every error names its path', () => {
    fails({}, /methods\.UPI\.imap\.password: is required \(or sign in with OAuth 2\.0 under "auth"\)/);
    fails({ password: 'pw', auth: { type: 'oauth2', provider: 'microsoft', clientId: 'c', refreshToken: 'r' } }, /methods\.UPI\.imap\.auth: give either "password" or "auth" \(OAuth 2\.0\), not both/);
    fails({ auth: { type: 'oauth2', clientId: 'c', refreshToken: 'r' } }, /methods\.UPI\.imap\.auth\.tokenUrl: is required \(or name a "provider": google or microsoft\)/);
    fails({ auth: { type: 'oauth2', provider: 'google', clientId: 'c', refreshToken: 'r' } }, /methods\.UPI\.imap\.auth\.clientSecret: is required for Google/);
    fails({ auth: { type: 'oauth2', provider: 'yahoo', clientId: 'c', refreshToken: 'r' } }, /methods\.UPI\.imap\.auth\.provider: expected "google" or "microsoft"/);
    fails({ auth: { type: 'oauth', provider: 'google', clientId: 'c', refreshToken: 'r' } }, /methods\.UPI\.imap\.auth\.type: expected "oauth2"/);
    fails({ auth: { type: 'oauth2', provider: 'microsoft', clientId: 'c' } }, /methods\.UPI\.imap\.auth\.refreshToken: is required/);
    fails({ auth: { type: 'oauth2', provider: 'microsoft', clientId: 'c', refreshToken: 'r', tenant: 'x' } }, /methods\.UPI\.imap\.auth\.tenant: unknown key/);
    // Secrets are read at first use (a command reads only those it needs), so an unset one fails there.
    const lazy = parse({ auth: { type: 'oauth2', provider: 'microsoft', clientId: 'c', refreshToken: { env: 'UNSET_RT' } } });
    assert.throws(() => lazy.auth!.refreshToken.reveal(), /methods\.UPI\.imap\.auth\.refreshToken: environment variable UNSET_RT is not set/);
  });
});
