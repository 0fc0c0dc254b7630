/**
 * `payd serve` killed with SIGKILL while it works through a backlog of EVM payments: started
 * again, it resumes from its checkpoint; every payment settles its intent, none is recorded twice.
 * A real node (anvil) behind a slow provider proxy that serves two blocks per getLogs. Both stores.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MERCHANT, startAnvil } from '../helpers/anvil.ts';
import { startEvmProxy } from '../fakes/evm-proxy.ts';
import { runPayd, spawnPayd, workdir } from '../helpers/cli.ts';
import { forEachStore } from '../helpers/stores.ts';
import { waitFor } from '../helpers/wait.ts';

const POLYGON_CHAIN_ID = 137;

forEachStore((store) => {
  test('kill -9 during an EVM backlog loses no payment and records none twice', async (t) => {
    const node = await startAnvil(POLYGON_CHAIN_ID);
    t.after(() => node.stop());
    const usdc = await node.deployToken('USDC', 6);
    const x = await startEvmProxy(node.url, { getLogsDelayMs: 150 });
    t.after(() => x.close());
    const on = await store.config();
    const dir = workdir(t, {
      server: { host: '127.0.0.1', port: 0, publicUrl: 'https://pay.example.com', rateLimit: { perSecond: 0, burst: 1 }, publicRateLimit: { perSecond: 0, burst: 1 }, ...on.server },
      database: on.database ?? { file: 'data/payd.sqlite' },
      methods: { USDC_POLYGON: { address: MERCHANT, contract: usdc, rpcUrl: x.url, pollSeconds: 0.2, backfillBlocks: 0, maxBlockRange: 2 } },
    });
    const made = await runPayd(['merchant', 'create', '--name', 'Shop', '--json'], dir);
    assert.equal(made.status, 0, made.stderr);
    const merchant = JSON.parse(made.stdout);
    const headers = { 'x-client-id': merchant.client_id, 'x-client-secret': merchant.client_secret, 'content-type': 'application/json' };
    const api = async (url: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };

    let d = await spawnPayd(['serve'], { cwd: dir });
    t.after(() => d.child.kill('SIGKILL'));
    const intents: { id: string; due: bigint }[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await api(d.url, 'POST', '/api/v1/intents/create-payment', { amount: 21 + i, currency: 'USDC_POLYGON', order_id: `crash-${i}` });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      intents.push({ id: r.body.intent_id, due: BigInt(/uint256=(\d+)$/.exec(r.body.payment_uri)![1]!) });
    }
    await waitFor(async () => x.calls.some((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'finalized'), 30_000, 'the scan to start');

    // Six payments spread over ~40 blocks: at two blocks per slow getLogs, a backlog of many calls.
    const paid: string[] = [];
    for (const it of intents) {
      paid.push((await node.transfer(usdc, MERCHANT, it.due)).hash);
      await node.mine(6);
    }
    const settled = async (url: string) => (await Promise.all(intents.map(async (it) => (await api(url, 'GET', `/api/v1/intents/${it.id}`)).body))).filter((b) => b.status === 'settled');
    await waitFor(async () => (await settled(d.url)).length >= 1, 60_000, 'a first settlement');
    const before = (await settled(d.url)).length;
    d.child.kill('SIGKILL');
    await d.exited;
    assert.ok(before < intents.length, 'killed in the middle of the backlog');

    d = await spawnPayd(['serve'], { cwd: dir });
    await waitFor(async () => (await settled(d.url)).length === intents.length, 90_000, 'every intent to settle after the restart');
    const bodies = await settled(d.url);
    assert.deepEqual(
      intents.map((it) => bodies.find((b) => b.intent_id === it.id)!.transaction_hash),
      paid,
    );
    // The store has each transfer once.
    d.child.kill('SIGTERM');
    await d.exited;
    const list = await runPayd(['payments', 'list', '--json'], dir);
    assert.equal(list.status, 0, list.stderr);
    const rows = JSON.parse(list.stdout) as { tx_ref: string }[];
    assert.equal(rows.length, intents.length, JSON.stringify(rows));
    assert.equal(new Set(rows.map((r) => r.tx_ref)).size, intents.length);
  });
});
