// `payd console invite | sessions | revoke` as the operator runs them (the built bin/payd).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runPayd, workdir } from '../helpers/cli.ts';

test('payd console invite prints a link valid 15 minutes; sessions lists; revoke names what it cannot find', async (t) => {
  const dir = workdir(t, { server: { publicUrl: 'https://pay.example.com', console: { enabled: true } } });
  const invite = await runPayd(['console', 'invite', '--name', "Asha's phone", '--json'], dir);
  assert.equal(invite.status, 0, invite.stderr);
  const { url, expires_at } = JSON.parse(invite.stdout) as { url: string; expires_at: string };
  assert.match(url, /^https:\/\/pay\.example\.com\/console\/invite\/[A-Za-z0-9_-]{32}$/);
  const minutes = (Date.parse(expires_at) - Date.now()) / 60_000;
  assert.ok(minutes > 13 && minutes <= 15, `${minutes} min`);

  const none = await runPayd(['console', 'sessions'], dir);
  assert.equal(none.status, 0, none.stderr);
  assert.equal(none.stdout.trim(), '(none)');

  const unknown = await runPayd(['console', 'revoke', 'cs_0000000000000000'], dir);
  assert.notEqual(unknown.status, 0);
  assert.match(unknown.stderr, /no console session cs_0000000000000000/);

  // Without publicUrl the link is for this host (a passkey needs a host name, never 127.0.0.1); off, it says so.
  const off = workdir(t, {});
  const plain = await runPayd(['console', 'invite', '--name', 'Tablet'], off);
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /^http:\/\/localhost:8080\/console\/invite\//);
  assert.match(plain.stderr, /The console is off: set server.console.enabled/);
});

