import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createQrCache } from '../../../src/http/checkout/qr.ts';
import { clientKey, createRateLimiter } from '../../../src/http/rate-limit.ts';

test('the QR cache draws a code once per intent, keeps at most `max`, and drops the least recently used', async () => {
  const qr = createQrCache(2);
  const a = qr.svg('a', 'upi://pay?pa=shop@hdfcbank&am=1.00');
  assert.equal(qr.svg('a', 'upi://pay?pa=shop@hdfcbank&am=1.00'), a, 'the second page view reuses the drawing');
  assert.match(String(await a), /^<svg class="qr"/);
  const b = qr.svg('b', 'upi://pay?pa=shop@hdfcbank&am=2.00');
  qr.svg('a', 'upi://pay?pa=shop@hdfcbank&am=1.00'); // a is now the most recent
  qr.svg('c', 'upi://pay?pa=shop@hdfcbank&am=3.00'); // evicts b
  assert.equal(qr.size(), 2);
  assert.equal(qr.svg('a', 'upi://pay?pa=shop@hdfcbank&am=1.00'), a);
  assert.notEqual(qr.svg('b', 'upi://pay?pa=shop@hdfcbank&am=2.00'), b, 'b was dropped and is drawn again');
  assert.notEqual(qr.svg('a', 'upi://pay?pa=other@okaxis&am=1.00'), a, 'another URI for the same intent is another code');
});

test('anonymous traffic is keyed by IPv4 address and by IPv6 /64', () => {
  assert.equal(clientKey('203.0.113.9'), '203.0.113.9');
  assert.equal(clientKey('::ffff:203.0.113.9'), '203.0.113.9');
  assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:0db8:0001:0002:ffff:1:2:3'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientKey(undefined), '');
});

test('the limiter refills at perSecond up to burst and stays bounded under a flood of keys', () => {
  let now = 0;
  const l = createRateLimiter({ perSecond: 2, burst: 3, clock: { now: () => now }, maxKeys: 100 });
  assert.deepEqual([l.take('x'), l.take('x'), l.take('x'), l.take('x')], [0, 0, 0, 1]);
  now += 500;
  assert.equal(l.take('x'), 0, 'one token back after half a second');
  assert.equal(l.take('y'), 0, 'another key has its own bucket');
  for (let i = 0; i < 1000; i++) l.take(`k${i}`);
  // Still limited right after the flood: x was either kept (empty) or dropped (then fresh, full).
  now += 1;
  assert.ok([0, 1].includes(l.take('x')));
});
