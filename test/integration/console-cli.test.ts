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


test('beside a demo (only a sandbox database), a command without --sandbox refuses to create an empty live database and says why; merchant create may begin the live shop', async (t) => {
  const dir = workdir(t);
  const demo = await runPayd(['--sandbox', 'merchant', 'create', '--name', 'Demo shop', '--json'], dir);
  assert.equal(demo.status, 0, demo.stderr);

  const invite = await runPayd(['console', 'invite', '--name', 'My phone'], dir);
  assert.notEqual(invite.status, 0);
  assert.equal(invite.stdout, '', 'no invite the demo would refuse');
  assert.match(invite.stderr, /only the sandbox database .*payd-sandbox\.sqlite exists \(the demo's\)/);
  assert.match(invite.stderr, /add --sandbox/);
  // Nothing was created: a list still points at the sandbox instead of printing (none).
  const list = await runPayd(['intents', 'list'], dir);
  assert.notEqual(list.status, 0);
  assert.match(list.stderr, /the sandbox database .* exists: add --sandbox/);

  assert.equal((await runPayd(['--sandbox', 'console', 'invite', '--name', 'My phone'], dir)).status, 0);
  const live = await runPayd(['merchant', 'create', '--name', 'Real shop', '--json'], dir);
  assert.equal(live.status, 0, live.stderr);
  assert.equal((await runPayd(['console', 'invite', '--name', 'My phone'], dir)).status, 0);
});
