// Webhook targets: the connected address is checked. Refused targets are refused before any
// packet leaves (the fake resolver answers; nothing is sent to a private address).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LookupAddress } from 'node:dns';
import { createWebhookPost, isRefusedAddress } from '../../src/webhooks/target.ts';
import { startReceiver } from '../helpers/receiver.ts';

test('private, link-local, metadata and reserved addresses are refused; loopback and public ones are not', () => {
  for (const a of ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.10', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:10.0.0.1', '::ffff:169.254.169.254']) {
    assert.equal(isRefusedAddress(a), true, a);
  }
  for (const a of ['127.0.0.1', '127.8.9.10', '::1', '93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '172.32.0.1', '::ffff:8.8.8.8']) {
    assert.equal(isRefusedAddress(a), false, a);
  }
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
  const target = createWebhookPost({ allowPrivateNetworks: false, lookup: fakeDns({ 'metadata.test': '169.254.169.254', 'intranet.test': '10.0.0.7', 'hook.test': '127.0.0.1' }) });
  t.after(() => target.close());
  const send = (url: string) => target.post(url, { 'content-type': 'application/json' }, '{}', 2000);
  for (const url of ['http://metadata.test/latest/meta-data/', 'http://intranet.test/hook', 'http://10.0.0.7/hook', 'http://[fd00:ec2::254]/hook']) {
    await assert.rejects(send(url), (e: any) => /private, link-local or reserved address/.test(`${e.message} ${e.cause?.message ?? ''}`), url);
  }
  assert.deepEqual(await send(`http://hook.test:${receiver.port}/hook`), { statusCode: 200 });
  assert.equal(receiver.received.length, 1);
  assert.deepEqual(await send(receiver.url), { statusCode: 200 }, 'a literal loopback address stays allowed');
});

test('a failed load of the HTTP client is not remembered: the next delivery loads it again', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  let loads = 0;
  // The first load fails as it did while an in-place upgrade had deleted the files (ERR_MODULE_NOT_FOUND).
  const load = () => (++loads === 1 ? Promise.reject(Object.assign(new Error("Cannot find module 'undici-XYZ.js'"), { code: 'ERR_MODULE_NOT_FOUND' })) : import('../../src/webhooks/undici.ts'));
  const target = createWebhookPost({ allowPrivateNetworks: true, load });
  t.after(() => target.close());
  const send = () => target.post(receiver.url, { 'content-type': 'application/json' }, '{}', 2000);
  await assert.rejects(send(), /Cannot find module/);
  assert.deepEqual(await send(), { statusCode: 200 });
  assert.equal(loads, 2);
  assert.equal(receiver.received.length, 1);
});
