// Webhook targets: the connected address is checked. Refused targets are refused before any
// packet leaves (the fake resolver answers; nothing is sent to a private address).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LookupAddress } from 'node:dns';
import { isRefusedAddress } from '../../../src/domain/webhook-url.ts';
import { createWebhookPost } from '../../../src/webhooks/target.ts';
import { startReceiver } from '../../helpers/receiver.ts';

test('private, link-local, metadata and reserved addresses are refused; loopback only when allowed; public ones are not', () => {
  const refused = ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.10', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe'];
  // IPv4 wrapped in IPv6: NAT64 (RFC 6052 well-known and local-use prefixes) and 6to4 reach the IPv4 address they carry.
  const wrapped = ['64:ff9b::a9fe:a9fe', '64:ff9b::169.254.169.254', '64:ff9b::a00:1', '64:ff9b:1:a9fe:a9:fe00::', '64:ff9b:1::', '2002:a9fe:a9fe::1', '2002:a00:1::', '2002:c0a8:101::5'];
  const loopback = ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::1'];
  const open = ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '172.32.0.1', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'];
  for (const a of [...refused, ...wrapped, ...loopback]) assert.equal(isRefusedAddress(a), true, a);
  for (const a of [...refused, ...wrapped]) assert.equal(isRefusedAddress(a, { allowLoopback: true }), true, `${a} with loopback allowed`);
  for (const a of loopback) assert.equal(isRefusedAddress(a, { allowLoopback: true }), false, `${a} with loopback allowed`);
  for (const a of open) assert.equal(isRefusedAddress(a), false, a);
});

/** A resolver standing in for DNS: names → addresses, as dns.lookup answers. */
const fakeDns = (table: Record<string, string>) =>
  ((host: string, _o: unknown, cb: (err: Error | null, a: LookupAddress[]) => void) => {
    const address = table[host];
    if (!address) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    cb(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  }) as never;

test('a name that resolves to the metadata address or a private network is refused at connect; loopback is delivered', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const target = createWebhookPost({ allowPrivateNetworks: false, allowLoopback: true, lookup: fakeDns({ 'metadata.test': '169.254.169.254', 'intranet.test': '10.0.0.7', 'hook.test': '127.0.0.1', 'nat64.test': '64:ff9b::a9fe:a9fe' }) });
  t.after(() => target.close());
  const send = (url: string) => target.post(url, { 'content-type': 'application/json' }, '{}', 2000);
  for (const url of ['http://metadata.test/latest/meta-data/', 'http://intranet.test/hook', 'http://10.0.0.7/hook', 'http://[fd00:ec2::254]/hook', 'http://nat64.test/hook', 'http://[64:ff9b::a9fe:a9fe]/hook', 'http://[2002:a9fe:a9fe::1]/hook']) {
    await assert.rejects(send(url), (e: any) => /private, link-local or reserved address/.test(`${e.message} ${e.cause?.message ?? ''}`), url);
  }
  assert.deepEqual(await send(`http://hook.test:${receiver.port}/hook`), { statusCode: 200 });
  assert.equal(receiver.received.length, 1);
  assert.deepEqual(await send(receiver.url), { statusCode: 200 }, 'a literal loopback address is allowed with allowLoopback');
});

test('without webhooks.allowLoopback a loopback target is refused at connect, by name or literal, and receives nothing', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const target = createWebhookPost({ allowPrivateNetworks: false, allowLoopback: false, lookup: fakeDns({ 'hook.test': '127.0.0.1', 'six.test': '::1', 'wrapped.test': '64:ff9b::7f00:1' }) });
  t.after(() => target.close());
  const send = (url: string) => target.post(url, { 'content-type': 'application/json' }, '{}', 2000);
  for (const url of [`http://hook.test:${receiver.port}/hook`, `http://six.test:${receiver.port}/hook`, `http://wrapped.test:${receiver.port}/hook`, receiver.url, `http://[::ffff:127.0.0.1]:${receiver.port}/hook`]) {
    await assert.rejects(send(url), (e: any) => /loopback/.test(`${e.message} ${e.cause?.message ?? ''}`), url);
  }
  assert.equal(receiver.received.length, 0);
});

test('a failed load of the HTTP client is not remembered: the next delivery loads it again', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  let loads = 0;
  // The first load fails as it did while an in-place upgrade had deleted the files (ERR_MODULE_NOT_FOUND).
  const load = () => (++loads === 1 ? Promise.reject(Object.assign(new Error("Cannot find module 'undici-XYZ.js'"), { code: 'ERR_MODULE_NOT_FOUND' })) : import('../../../src/webhooks/undici.ts'));
  const target = createWebhookPost({ allowPrivateNetworks: true, allowLoopback: true, load });
  t.after(() => target.close());
  const send = () => target.post(receiver.url, { 'content-type': 'application/json' }, '{}', 2000);
  await assert.rejects(send(), /Cannot find module/);
  assert.deepEqual(await send(), { statusCode: 200 });
  assert.equal(loads, 2);
  assert.equal(receiver.received.length, 1);
});
