import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startNotifyingPayd, upiPayment } from '../helpers/notify.ts';
import { RECEIVERS, testClock } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';
import { waitFor } from '../helpers/wait.ts';

forEachStore((store) => {
  test('a dust flood (40 one-lamport transfers) and a burst of unmatched payments are one message per period, not one each', async (t) => {
    const clock = testClock();
    const { p, tg } = await startNotifyingPayd(t, { store, clock, notify: { telegram: { chatIds: [1001] }, email: null, unmatched: { below: { SOL: '0.001' } } } });
    // The feed reads from here on.
    await delay(1500);
    for (let i = 0; i < 40; i++) {
      clock.advance(1);
      const r = await p.app.ledger.ingest({ method: 'SOL', receiver: RECEIVERS.SOL, amountMinor: 1n, txRef: `dust${i}z`.padEnd(88, "1"), occurredAt: clock.now(), observedAt: clock.now(), source: 'solana' });
      assert.equal(r.kind, 'unmatched');
    }
    // A burst of real-looking unmatched UPI payments: the first few are told one by one, the rest counted.
    for (let i = 0; i < 8; i++) {
      clock.advance(1);
      assert.equal((await p.app.ledger.ingest(upiPayment(p, 50_000n + BigInt(i), `5000000000${String(i).padStart(2, '0')}`))).kind, 'unmatched');
    }
    await waitFor(async () => tg.sent.length >= 5, 10_000, 'the first unmatched payments of the burst');
    await delay(2500);
    assert.deepEqual(
      tg.sent.map((s) => s.text.slice(0, 33)),
      ['00', '01', '02', '03', '04'].map((p) => `Payment matched no order: ₹500.${p}`),
      'no dust told, five of the burst told',
    );
    // The period ends: one summary of everything not told one by one.
    clock.advance(60 * 60_000);
    await waitFor(async () => tg.sent.length >= 6, 10_000, 'the summary');
    await delay(2500);
    assert.equal(tg.sent.length, 6);
    assert.equal(tg.sent[5]!.text, '43 more payments matched no order in the last 60 min (below the amount worth a message, or beyond 5 in a burst): 0.00000004 SOL, ₹1,500.18. See payd payments list --unmatched.');
  });
});
