/**
 * A TRON transfer that one of two endpoints lists and the other never does, through the real app
 * (workers on, the real TRON source and ledger): it settles nothing, and once it has waited
 * `unconfirmedMinutes` it is a rejection the operator sees (`payments.rejections`, the reason and
 * the endpoint in its detail) and `payd doctor` fails on. On both stores.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MERCHANT, startFakeTronGrid } from '../fakes/trongrid.ts';
import { startPayd } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';
import { waitFor } from '../helpers/wait.ts';

forEachStore((store) => {
  test('a transfer only one endpoint lists is recorded as rejected (unconfirmed_transfer) after the bound; the intent stays pending; doctor says so', async (t) => {
    const a = await startFakeTronGrid();
    const b = await startFakeTronGrid();
    t.after(() => Promise.all([a.close(), b.close()]));
    b.transfers = a.transfers;
    const p = await startPayd({
      store,
      workers: true,
      sources: 'configured',
      config: {
        methods: {
          UPI: undefined,
          SOL: undefined,
          USDT_SOL: undefined,
          // 3 s instead of 30 min, so the test does not wait.
          USDT_TRC20: { address: MERCHANT, pollSeconds: 0.2, endpoints: [{ url: a.url, apiKey: 'key-a-0123456789abcdef' }, { url: b.url, apiKey: 'key-b-0123456789abcdef', weight: 2 }], unconfirmedMinutes: 0.05 },
        },
      },
    });
    t.after(() => p.close());
    const m = await p.merchant();
    const created = await p.api('POST', '/api/v1/intents/create-payment', { headers: m.headers, body: { amount: 7, currency: 'USDT_TRC20', order_id: 'only-b' } });
    const intent = created.body as { intent_id: string; pay_amount: number };
    const only = b.addOwn({ value: String(Math.round(intent.pay_amount * 1e6)), block_timestamp: Date.now() - 120_000 }); // under the solidified head

    const unconfirmed = async () => (await p.app.payments.rejections()).filter((r) => r.reason === 'unconfirmed_transfer');
    await waitFor(async () => (await unconfirmed()).length > 0, 15_000, 'the rejection after the bound');
    const [r] = await unconfirmed();
    assert.equal(r!.method, 'USDT_TRC20');
    assert.equal((r!.detail as { txid?: string }).txid, only.transaction_id);
    assert.match(String((r!.detail as { why?: string }).why), /no second endpoint listed it within 0\.05 minutes/);
    assert.equal(((await p.api('GET', `/api/v1/intents/${intent.intent_id}`, { headers: m.headers })).body as { status: string }).status, 'pending', 'no money moved');

    const line = (await p.app.doctor.run()).find((l) => /unconfirmed_transfer/.test(l.message));
    assert.ok(line, 'doctor reports it');
    assert.equal(line.ok, false);
    assert.match(line.message, /^1 transfer in the last 7 days listed by one endpoint only, never confirmed by a second/);
    assert.equal((await unconfirmed()).length, 1, 'listed again, recorded once');
  });
});
