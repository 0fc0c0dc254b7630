import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { test } from 'node:test';
import { RECEIVERS, startPayd, testClock } from '../helpers/payd.ts';
import { parsePrometheusText, sampleValue } from '../helpers/prom-text.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { metricsClients } from '../../src/http/ops.ts';

/** This machine's own non-loopback IPv4 address: a request to it is not from loopback, and never leaves the host. */
function ownAddress(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  throw new Error('this test needs a non-loopback IPv4 interface (to be a client that is not loopback)');
}

test('/metrics: strict Prometheus text with the payd families counting what happened; refused (403) to clients outside loopback and server.metrics.allow', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const clock = testClock();
  const p = await startPayd({ sandbox: true, workers: true, sources: 'configured', clock, config: { server: { host: '0.0.0.0' } } });
  t.after(() => p.close());
  const m = await p.merchant('Shop', receiver.url);
  const create = async (order: string) => (await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 10, currency: 'UPI', order_id: order } })).body;
  const a = await create('a');
  const b = await create('b');
  assert.equal(b.pay_amount, 10.02, 'a: ₹10.01, b: ₹10.02 (never the whole ₹10.00)');
  // a: paid exactly (settled); a stray transfer nobody asked for (unmatched); b: expires.
  await p.app.sandboxSource.simulate({ method: 'UPI', receiver: RECEIVERS.UPI, amountMinor: 1001n, txRef: '111122223333', reference: null });
  await p.app.sandboxSource.simulate({ method: 'UPI', receiver: RECEIVERS.UPI, amountMinor: 777n, txRef: '444455556666', reference: null });
  await waitFor(async () => (await p.app.intents.get(a.intent_id)).status === 'settled', 10_000, 'settlement');
  await p.app.ledger.reject({ source: 'imap', method: 'UPI', ref: 'imap:1:9', reason: 'dkim_invalid', observedAt: clock.now() });
  clock.advance(31 * 60_000);
  await p.app.intents.expireDue();
  await receiver.waitFor(2, 10_000); // payment.success for a, intent.expired for b

  const port = new URL(p.url).port;
  const res = await waitFor(async () => {
    const r = await fetch(`http://127.0.0.1:${port}/metrics`);
    const text = await r.text();
    // (After the clock jump the source counts as up again once it completed its next cycle.)
    return /payd_webhook_attempts_total\{result="delivered"\} 2/.test(text) && /payd_source_up\{method="sandbox"\} 1/.test(text) && { r, text };
  }, 10_000, 'both deliveries counted and the source up');
  assert.equal(res.r.status, 200);
  assert.match(res.r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const fam = parsePrometheusText(res.text);
  assert.equal(sampleValue(fam, 'payd_intents_created_total', { method: 'UPI' }), 2);
  assert.equal(sampleValue(fam, 'payd_intents_settled_total', { method: 'UPI' }), 1);
  assert.equal(sampleValue(fam, 'payd_intents_expired_total', { method: 'UPI' }), 1);
  assert.equal(sampleValue(fam, 'payd_payments_unmatched_total', { method: 'UPI', reason: 'no_matching_intent' }), 1);
  assert.equal(sampleValue(fam, 'payd_payments_rejected_total', { method: 'UPI', reason: 'dkim_invalid' }), 1);
  assert.equal(sampleValue(fam, 'payd_webhook_delivery_latency_seconds_count'), 2);
  assert.equal(sampleValue(fam, 'payd_webhook_attempt_duration_seconds_count'), 2);
  assert.equal(sampleValue(fam, 'payd_worker_leader'), 1);
  assert.equal(sampleValue(fam, 'payd_source_up', { method: 'sandbox' }), 1);
  assert.ok(sampleValue(fam, 'payd_source_last_success_timestamp_seconds', { method: 'sandbox' })! > 1.7e9);
  assert.ok(sampleValue(fam, 'payd_source_lag_seconds', { method: 'sandbox' })! >= 0);
  const receiverLabel = [...fam.get('payd_amount_pool_use_ratio')!.samples][0]!.labels;
  assert.equal(receiverLabel.method, 'UPI');
  // b searched 2 of the 99 amounts of 10.00's window (₹10.00 … ₹11.00 less its two whole rupees).
  assert.equal(sampleValue(fam, 'payd_amount_pool_use_ratio', receiverLabel), 2 / 99);
  assert.ok(fam.has('process_cpu_user_seconds_total') && fam.has('nodejs_eventloop_lag_seconds'), 'process metrics');
  // Prometheus naming: payd_ prefix, counters end in _total, labels from small closed sets (never an id).
  for (const [name, f] of fam) {
    if (!name.startsWith('payd_')) continue;
    if (f.type === 'counter') assert.match(name, /_total$/);
    for (const s of f.samples) for (const label of Object.keys(s.labels)) assert.ok(['method', 'reason', 'result', 'receiver', 'le', 'pair', 'source', 'endpoint', 'outcome'].includes(label), `${name} has label ${label}`);
  }

  const outside = await fetch(`http://${ownAddress()}:${port}/metrics`);
  assert.equal(outside.status, 403);
  assert.equal(((await outside.json()) as any).code, 'FORBIDDEN');
  // The API itself still answers that client.
  assert.equal((await fetch(`http://${ownAddress()}:${port}/healthz`)).status, 200);
});

test('server.metrics.allow admits the listed networks', async (t) => {
  const own = ownAddress();
  const p = await startPayd({ config: { server: { host: '0.0.0.0', metrics: { allow: [`${own}/32`] } } } });
  t.after(() => p.close());
  const res = await fetch(`http://${own}:${new URL(p.url).port}/metrics`);
  assert.equal(res.status, 200);
  parsePrometheusText(await res.text());
});

test('metrics clients: loopback (v4, v6, v4-mapped) and configured CIDRs only', () => {
  const allowed = metricsClients(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']);
  for (const ok of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1', '10.200.1.1', '::ffff:10.0.0.1', '2001:db8:1::5', '192.0.2.7']) assert.equal(allowed(ok), true, ok);
  for (const no of ['192.0.2.8', '11.0.0.1', '::ffff:192.168.1.1', 'fd00::1', '2001:db9::1', undefined]) assert.equal(allowed(no), false, String(no));
});
