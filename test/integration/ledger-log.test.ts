// What `journalctl -u payd` shows of money: one line per settlement, hold and unmatched payment,
// each naming the reference, the method, the exact amount and the intent (or how to resolve it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startPayd } from '../helpers/payd.ts';
import { recordingLogger } from '../helpers/solana-ledger.ts';

test('the daemon logs each settlement, hold and unmatched payment with reference, method, amount and intent', async (t) => {
  const log = recordingLogger();
  const p = await startPayd({ log });
  t.after(() => p.close());
  const m = await p.merchant('Shop');
  const create = async (amount: number, order: string) => {
    const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'UPI', order_id: order }, headers: m.headers });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (await p.app.intents.find(r.body.intent_id))!;
  };
  const pay = (receiver: string, amountMinor: bigint, txRef: string) => {
    const now = p.clock.now();
    return p.app.ledger.ingest({ method: 'UPI', receiver, amountMinor, txRef, occurredAt: now, observedAt: now, source: 'imap' });
  };

  const paid = await create(499, 'log-1');
  assert.equal((await pay(paid.receiver, paid.payAmountMinor, '512300000001')).kind, 'settled');
  const short = await create(880, 'log-2');
  assert.equal((await pay(short.receiver, short.payAmountMinor - 50n, '512300000002')).kind, 'held');
  assert.equal((await pay(paid.receiver, 12345n, '512300000003')).kind, 'unmatched');

  const line = (msg: string) => log.lines.find((l) => l.msg === msg)?.fields;
  assert.deepEqual(pick(line('payment settled')), { method: 'UPI', tx_ref: '512300000001', amount: (Number(paid.payAmountMinor) / 100).toFixed(2), intent_id: paid.id });
  assert.deepEqual(pick(line('payment held for its intent')), { method: 'UPI', tx_ref: '512300000002', amount: (Number(short.payAmountMinor - 50n) / 100).toFixed(2), intent_id: short.id });
  const unmatched = line('payment kept unmatched')!;
  assert.deepEqual(pick(unmatched), { method: 'UPI', tx_ref: '512300000003', amount: '123.45', intent_id: undefined });
  assert.equal(unmatched.resolve, 'payd intents settle <intent_id> --tx 512300000003');
});

const pick = (f: Record<string, unknown> | undefined) => f && { method: f.method, tx_ref: f.tx_ref, amount: f.amount, intent_id: f.intent_id };
