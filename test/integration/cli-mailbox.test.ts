// `payd mailbox authorize`: getting a mailbox's first refresh token in one command, against a local
// OAuth server standing in for Microsoft (device authorization grant) and Google (authorization code
// with PKCE and a pasted loopback redirect). Endpoints are pointed at the fake with the command's flags.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Prompter } from '../../src/cli/prompter.ts';
import { runCli } from '../../src/cli/main.ts';
import { startFakeOAuth, type FakeOAuth } from '../fakes/oauth-provider.ts';
import { waitFor } from '../helpers/wait.ts';

function cli(args: string[], cwd: string, prompter?: Prompter) {
  const io = { out: '', err: '' };
  const done = runCli(args, {
    env: {},
    cwd,
    prompter,
    io: { out: (t) => void (io.out += t + '\n'), err: (t) => void (io.err += t + '\n') },
  });
  return { io, done };
}

describe('payd mailbox authorize', () => {
  let dir: string;
  let ms: FakeOAuth;
  let google: FakeOAuth;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'payd-authorize-'));
    ms = await startFakeOAuth({ clientId: 'ms-public-client', clientSecret: null });
    google = await startFakeOAuth({ clientId: '123.apps.googleusercontent.com', clientSecret: 'GOCSPX-test' });
  });
  after(async () => {
    await ms.close();
    await google.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('microsoft: device code flow, the refresh token lands in a 0600 file and the config snippet names it', async () => {
    const run = cli(['mailbox', 'authorize', '--provider', 'microsoft', '--client-id', ms.clientId, '--device-url', ms.deviceUrl, '--token-url', ms.tokenUrl, '--out', 'rt.txt'], dir);
    await waitFor(async () => ms.devicePolls >= 1, 10_000, 'the first poll'); // still pending: the user has not signed in
    assert.match(run.io.err, /Open http:\/\/127\.0\.0\.1:\d+\/device in a browser, sign in as the mailbox owner and enter the code WDJB-MJHT/);
    ms.approveDevice();
    assert.equal(await run.done, 0, run.io.err);
    assert.ok(ms.devicePolls >= 2);
    assert.equal(ms.lastDeviceRequest?.scope, 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access');
    assert.equal(ms.lastDeviceRequest?.client_id, 'ms-public-client');
    const file = join(dir, 'rt.txt');
    const token = readFileSync(file, 'utf8').trim();
    assert.ok(ms.issued.includes(token), 'the file holds the issued refresh token');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!run.io.out.includes(token) && !run.io.err.includes(token), 'the token is not printed when written to a file');
    const snippet = JSON.parse(run.io.out.slice(run.io.out.indexOf('{')));
    assert.deepEqual(snippet, { type: 'oauth2', provider: 'microsoft', tokenUrl: ms.tokenUrl, clientId: 'ms-public-client', refreshToken: { file } });
  });

  test('--out onto an existing 0644 file: the token is written at mode 0600 all the same, and the message says the mode the file has', async () => {
    const file = join(dir, 'existing.txt');
    writeFileSync(file, 'an old token\n');
    chmodSync(file, 0o644);
    const run = cli(['mailbox', 'authorize', '--provider', 'microsoft', '--client-id', ms.clientId, '--device-url', ms.deviceUrl, '--token-url', ms.tokenUrl, '--out', 'existing.txt'], dir);
    const polls = ms.devicePolls;
    await waitFor(async () => ms.devicePolls > polls, 10_000, 'the first poll');
    ms.approveDevice();
    assert.equal(await run.done, 0, run.io.err);
    const token = readFileSync(file, 'utf8').trim();
    assert.ok(ms.issued.includes(token), 'the file holds the new refresh token');
    assert.equal((statSync(file).mode & 0o777).toString(8), '600');
    assert.match(run.io.out, new RegExp(`The refresh token is in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(mode 0600\\)`));
  });

  test('google: authorization URL with PKCE, the pasted redirect is exchanged for a refresh token', async () => {
    let asked = '';
    let run: ReturnType<typeof cli>;
    const prompter = {
      input: async (o: { message: string }) => {
        await new Promise((r) => setImmediate(r)); // asked within the cli() call: let it return first
        asked = o.message;
        const url = new URL(/https?:\/\/\S+\/auth\?\S+/.exec(run.io.err)![0]);
        const p = url.searchParams;
        assert.equal(p.get('scope'), 'https://mail.google.com/');
        assert.equal(p.get('access_type'), 'offline');
        assert.equal(p.get('code_challenge_method'), 'S256');
        assert.equal(p.get('client_id'), google.clientId);
        assert.equal(p.get('login_hint'), 'alerts@shop.example');
        const code = google.authorizeCode(p.get('code_challenge')!, p.get('redirect_uri')!);
        return `${p.get('redirect_uri')}?state=${p.get('state')}&code=${encodeURIComponent(code)}&scope=https%3A%2F%2Fmail.google.com%2F`;
      },
    } as unknown as Prompter;
    run = cli(
      ['mailbox', 'authorize', '--provider', 'google', '--client-id', google.clientId, '--client-secret', 'GOCSPX-test', '--login-hint', 'alerts@shop.example', '--auth-url', `${google.url}/auth`, '--token-url', google.tokenUrl],
      dir,
      prompter,
    );
    assert.equal(await run.done, 0, run.io.err);
    assert.match(asked, /Paste the address/);
    assert.equal(google.lastCodeRequest?.client_secret, 'GOCSPX-test');
    const token = /Refresh token \(keep it secret; store it like a password\):\n(\S+)/.exec(run.io.out)![1];
    assert.ok(google.issued.includes(token));
    assert.match(run.io.out, /"refreshToken": \{\s+"env": "PAYD_IMAP_REFRESH_TOKEN"/);
  });

  test('google: a pasted address from another authorization is refused; a missing client secret is a usage error', async () => {
    const prompter = { input: async () => 'http://127.0.0.1:8400/?state=someone-else&code=abc' } as unknown as Prompter;
    const run = cli(['mailbox', 'authorize', '--provider', 'google', '--client-id', google.clientId, '--client-secret', 'GOCSPX-test', '--auth-url', `${google.url}/auth`, '--token-url', google.tokenUrl], dir, prompter);
    assert.equal(await run.done, 2);
    assert.match(run.io.err, /state differs/);
    const noSecret = cli(['mailbox', 'authorize', '--provider', 'google', '--client-id', google.clientId], dir);
    assert.equal(await noSecret.done, 2);
    assert.match(noSecret.io.err, /Google needs the OAuth client secret/);
    const bad = cli(['mailbox', 'authorize', '--provider', 'yahoo'], dir);
    assert.equal(await bad.done, 2);
  });
});
