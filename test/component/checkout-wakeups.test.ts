// The checkout's live status reads a watched intent as soon as a wake-up names it (a
// settlement or cancel committed by any process on the database), not at its next poll.
// Real node:http server and WebSocket; the poll is set to a minute so only the wake-up can
// explain a prompt message.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { WebSocket } from 'undici';
import { intentFromRow } from '../../src/db/intent-rows.ts';
import type { IntentsTable } from '../../src/db/schema.ts';
import { localWakeups } from '../../src/db/wakeups.ts';
import { createCheckoutSockets } from '../../src/http/checkout/ws.ts';
import { silentLogger } from '../../src/log/index.ts';

const ID = '7d0f3f9e-7a51-4c3e-9a8e-0c1d2e3f4a5b';

function row(status: IntentsTable['status']): IntentsTable {
  const now = Date.now();
  return {
    id: ID, merchant_id: 'm', order_id: 'o-1', method: 'UPI', amount_minor: 1000, pay_amount_minor: 1001, receiver: 'shop@hdfcbank', reference: null,
    payment_uri: 'upi://pay', status, return_url: null, created_at: now, expires_at: now + 600_000, transaction_hash: status === 'settled' ? '412345678901' : null,
    verified_at: null, payment_id: null, updated_at: now,
  };
}

test('checkout websocket: a wake-up naming the intent sends its new state at once; one naming others reads nothing', async (t) => {
  let current = row('pending');
  let reads = 0;
  const wakeups = localWakeups();
  const sockets = createCheckoutSockets({
    intents: { find: async (id: string) => (reads++, id === ID ? intentFromRow(current) : undefined) },
    clock: { now: () => Date.now() },
    log: silentLogger(),
    pollMs: 60_000,
    finalGraceMs: 60_000,
    wakeups,
  });
  const server = createServer((_req, res) => res.end());
  server.on('upgrade', (req, socket, head) => sockets.handleUpgrade(req, socket, head));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    sockets.closeAll();
    server.closeAllConnections();
    server.close();
  });
  const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/pay/${ID}/ws`);
  t.after(() => ws.close());
  const messages: Array<Record<string, unknown>> = [];
  ws.addEventListener('message', (e) => messages.push(JSON.parse(String(e.data))));
  const until = async (n: number, ms: number) => {
    const end = Date.now() + ms;
    while (messages.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    return messages.length >= n;
  };
  assert.ok(await until(1, 5000), 'the first state');
  assert.equal(messages[0]!.status, 'pending');

  const before = reads;
  wakeups.publish(['some-other-intent']);
  wakeups.publish([]);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(reads, before, 'wake-ups for other intents read nothing');

  current = row('settled');
  wakeups.publish([ID]);
  // Within 2 s where the next poll would come after a minute.
  assert.ok(await until(2, 2000), 'the settled state after the wake-up');
  assert.equal(messages[1]!.status, 'settled');
  assert.equal(messages[1]!.transaction_hash, '412345678901');
});
