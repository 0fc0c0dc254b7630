import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../../src/methods/load-config.ts';
import { createClientAddress, isForwarded } from '../../../src/http/client-address.ts';

const req = (peer: string, xff?: string | string[]) => ({ socket: { remoteAddress: peer }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } });

test('without trusted proxies the client is the socket peer, whatever X-Forwarded-For says', () => {
  const client = createClientAddress([]);
  assert.equal(client(req('127.0.0.1', '198.51.100.7')), '127.0.0.1');
  assert.equal(client(req('::ffff:192.0.2.1', '198.51.100.7')), '192.0.2.1');
  assert.equal(client(req('2001:db8::1')), '2001:db8::1');
});

test('behind trusted proxies the client is the rightmost X-Forwarded-For entry that is not one of them', () => {
  const client = createClientAddress(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
  // nginx appended the address it saw; the entries left of it are the client's own claims.
  assert.equal(client(req('127.0.0.1', '198.51.100.7, 203.0.113.5')), '203.0.113.5');
  // Through a chain of trusted hops (a balancer at 10.1.2.3 in front of nginx).
  assert.equal(client(req('127.0.0.1', '198.51.100.7, 203.0.113.5, 10.1.2.3')), '203.0.113.5');
  assert.equal(client(req('::ffff:127.0.0.1', ['198.51.100.7', '203.0.113.5'])), '203.0.113.5', 'repeated headers read as one list');
  assert.equal(client(req('127.0.0.1', '[2001:db8::5]:4711')), '2001:db8::5');
  assert.equal(client(req('127.0.0.1', '192.0.2.9:4711')), '192.0.2.9');
  // A peer that is no trusted proxy: its header proves nothing.
  assert.equal(client(req('192.0.2.50', '203.0.113.5')), '192.0.2.50');
  // No header, only trusted hops, or garbage: the last trusted hop is all we know.
  assert.equal(client(req('127.0.0.1')), '127.0.0.1');
  assert.equal(client(req('127.0.0.1', '10.0.0.1, 10.0.0.2')), '10.0.0.1');
  assert.equal(client(req('127.0.0.1', 'unknown')), '127.0.0.1');
  assert.equal(client(req('127.0.0.1', '203.0.113.5, not-an-ip, 10.0.0.2')), '10.0.0.2');
  assert.equal(client(req('127.0.0.1', '')), '127.0.0.1');
});

test('a forwarded request is one that names the client it was forwarded for', () => {
  assert.equal(isForwarded({ headers: {} }), false);
  assert.equal(isForwarded({ headers: { 'x-forwarded-for': '1.2.3.4' } }), true);
  assert.equal(isForwarded({ headers: { forwarded: 'for=1.2.3.4' } }), true);
  assert.equal(isForwarded({ headers: { 'x-real-ip': '1.2.3.4' } }), true);
});

test('server.trustedProxies: addresses and CIDRs, none by default; server.metrics.listen', () => {
  assert.deepEqual(parseConfig({}, '/srv', {}).server.trustedProxies, []);
  const c = parseConfig({ server: { trustedProxies: ['127.0.0.1', '10.0.0.0/8', '::1'], metrics: { listen: { port: 9464 } } } }, '/srv', {});
  assert.deepEqual(c.server.trustedProxies, ['127.0.0.1', '10.0.0.0/8', '::1']);
  assert.deepEqual(c.server.metrics.listen, { host: '127.0.0.1', port: 9464 });
  assert.throws(() => parseConfig({ server: { trustedProxies: ['nginx'] } }, '/srv', {}), /server\.trustedProxies\.0: expected an IP address or CIDR/);
});

test('a proxy on this host that is not trusted is reported once (every client behind it would share one bucket)', () => {
  const told: string[] = [];
  const client = createClientAddress([], (peer) => told.push(peer));
  client(req('192.0.2.1', '203.0.113.5')); // a stranger writing the header: nothing to report
  client(req('127.0.0.1'));
  assert.deepEqual(told, []);
  client(req('::ffff:127.0.0.1', '203.0.113.5'));
  client(req('127.0.0.1', '203.0.113.6'));
  assert.deepEqual(told, ['127.0.0.1']);
});
