// What `journalctl -u payd` shows of money: one line per settlement, hold, rejection and unmatched
// payment, each naming the reference, the method, the exact amount and the intent with its order id
// (or, unmatched, the orders it may be for and how to resolve it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startPayd } from '../helpers/payd.ts';
import { createLogger } from '../../src/log/index.ts';

test('the daemon logs each settlement, hold, rejection and unmatched payment with reference, method, amount, intent and order', async (t) => {
  // The daemon's own pino logger, its JSON lines captured as journald would receive them.
  const written: Record<string, any>[] = [];
  const p = await startPayd({ log: createLogger({ format: 'json', write: (line) => void written.push(JSON.parse(line)) }) });
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
  const wanted = await create(200, 'log-3');
  assert.equal((await pay(paid.receiver, 19000n, '512300000004')).kind, 'unmatched');
  assert.equal((await pay(paid.receiver, 0n, '512300000005')).kind, 'rejected');

  const line = (msg: string) => written.find((l) => l.msg === msg);
  assert.deepEqual(pick(line('payment settled')), { method: 'UPI', tx_ref: '512300000001', amount: (Number(paid.payAmountMinor) / 100).toFixed(2), intent_id: paid.id, order_id: 'log-1' });
  assert.deepEqual(pick(line('payment held for its intent')), { method: 'UPI', tx_ref: '512300000002', amount: (Number(short.payAmountMinor - 50n) / 100).toFixed(2), intent_id: short.id, order_id: 'log-2' });
  const [unmatched, near] = written.filter((l) => l.msg === 'payment kept unmatched');
  assert.deepEqual(pick(unmatched), { method: 'UPI', tx_ref: '512300000003', amount: '123.45', intent_id: undefined, order_id: undefined });
  assert.deepEqual(unmatched!.candidates, []);
  assert.equal(unmatched!.resolve, 'payd intents settle <intent_id> --tx 512300000003');
  // 190.00 where an order asked 200.xx: the line names it, and the command is ready to run.
  assert.deepEqual(near!.candidates, [{ intent_id: wanted.id, order_id: 'log-3', status: 'pending', asked: (Number(wanted.payAmountMinor) / 100).toFixed(2) }]);
  assert.equal(near!.resolve, `payd intents settle ${wanted.id} --tx 512300000004`);
  const rejected = line('observation rejected')!;
  assert.deepEqual({ method: rejected.method, reason: rejected.reason, ref: rejected.ref }, { method: 'UPI', reason: 'amount_out_of_range', ref: 'UPI:512300000005' });
});

const pick = (f: Record<string, unknown> | undefined) => f && { method: f.method, tx_ref: f.tx_ref, amount: f.amount, intent_id: f.intent_id, order_id: f.order_id };
