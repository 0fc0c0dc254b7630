// The CLI's `intents list` and the API's cursor list share one status rule: a pending intent
// past its expires_at is listed (and filtered) as expired before the expiry job has run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startPayd, testClock } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';

forEachStore((store) => {
  test('pending and expired as the fetch reports them, alike in the CLI list and the API list', async (t) => {
    const clock = testClock(Date.parse('2026-11-22T10:00:00.000Z'));
    // No workers: the expiry job never runs, the stored status of the old intent stays pending.
    const p = await startPayd({ store, clock, workers: false });
    t.after(() => p.close());
    const m = await p.merchant();
    const create = async (order: string) => (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 10, currency: 'UPI', order_id: order }, headers: m.headers })).body.intent_id as string;
    const old = await create('old');
    clock.advance(1800_000 + 1000); // past the default 30-minute ttl
    const fresh = await create('fresh');

    const cli = async (status: string) => (await p.app.intents.list({ status })).map((i) => [i.intent_id, i.status]);
    const api = async (status: string) => (await p.api('GET', `/api/v1/intents?status=${status}`, { headers: m.headers })).body.data.map((i: any) => [i.intent_id, i.status]);

    assert.deepEqual(await cli('pending'), [[fresh, 'pending']]);
    assert.deepEqual(await cli('expired'), [[old, 'expired']]);
    assert.deepEqual(await api('pending'), await cli('pending'));
    assert.deepEqual(await api('expired'), await cli('expired'));
    assert.deepEqual((await cli('')).map(([id]) => id), [fresh, old]);
  });
});
