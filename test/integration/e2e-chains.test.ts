import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import { startFakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { solTransfer, tokenTransfer, USDT_MINT } from '../fakes/solana-tx.ts';
import { CUSTOMER, MERCHANT, startFakeTronGrid, USDT } from '../fakes/trongrid.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore, type TestStore } from '../helpers/stores.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

// Upstream fake → real source → real ledger → settled intent → signed webhook, through the real app.


/** `again`: a restart of that payd, on its store (its directory, or its PostgreSQL database). */
async function payd(t: import('node:test').TestContext, methods: Record<string, unknown>, o: { store?: TestStore; again?: PaydHarness } = {}) {
  const same = o.again ? { database: o.again.rawConfig.database, server: { masterKey: o.again.rawConfig.server.masterKey } } : {};
  const p = await startPayd({ workers: true, sources: 'configured', store: o.store, dir: o.again?.dir, config: { ...same, methods: { UPI: undefined, USDT_TRC20: undefined, SOL: undefined, USDT_SOL: undefined, ...methods } } });
  t.after(() => p.close());
  return p;
}

const statusOf = async (p: PaydHarness, id: string) => (await p.app.intents.get(id)).status;

// Sources, checkpoints and settlement on both stores (test/helpers/stores.ts).
forEachStore((store) => {
  test('TRON: a confirmed USDT transfer of the exact pay_amount settles its intent; unconfirmed does not yet', async (t) => {
    const grid = await startFakeTronGrid();
    t.after(() => grid.close());
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const p = await payd(t, { USDT_TRC20: { address: MERCHANT, apiUrl: grid.url, pollSeconds: 0.1 } }, { store });
    const m = await p.merchant('Shop', receiver.url);
    const intent = (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 12.5, currency: 'USDT_TRC20', order_id: 'tron-1' }, headers: m.headers })).body;
    assert.equal(intent.payment_address, MERCHANT);

    const transfer = grid.add({ to: MERCHANT, from: CUSTOMER, value: '12500000', confirmed: false, block_timestamp: Date.now() });
    grid.add({ to: MERCHANT, from: CUSTOMER, value: '9000000', confirmed: true, block_timestamp: Date.now() }); // wrong amount, far below any intent's attribution window
    await waitFor(async () => (await p.app.payments.list({ unmatched: true })).length === 1, 5000, 'the wrong-amount transfer to be kept unmatched');
    assert.equal(await statusOf(p, intent.intent_id), 'pending', 'unconfirmed transfers never settle');

    grid.confirm(transfer.transaction_id);
    await waitFor(async () => (await statusOf(p, intent.intent_id)) === 'settled', 5000, 'settlement');
    const fetched = await p.app.intents.get(intent.intent_id);
    assert.equal(fetched.transaction_hash, transfer.transaction_id);
    const [hook] = await receiver.waitFor(1);
    assert.equal(JSON.parse(hook.body).data.intent_id, intent.intent_id);
  });

  test('TRON: a transfer made while payd was stopped settles when it starts again', async (t) => {
    const grid = await startFakeTronGrid();
    t.after(() => grid.close());
    const first = await startPayd({ store, workers: true, sources: 'configured', keepDir: true, config: { methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: { address: MERCHANT, apiUrl: grid.url, pollSeconds: 0.1 } } } });
    const m = await first.merchant();
    const intent = (await first.api('POST', '/api/v1/intents/create-payment', { body: { amount: 7, currency: 'USDT_TRC20', order_id: 'offline' }, headers: m.headers })).body;
    await waitFor(async () => grid.requests.length > 0, 5000, 'a first listing');
    await first.close();
    const tx = grid.add({ to: MERCHANT, from: CUSTOMER, value: '7010000', confirmed: true, block_timestamp: Date.now() });
    const second = await payd(t, { USDT_TRC20: { address: MERCHANT, apiUrl: grid.url, pollSeconds: 0.1 } }, { store, again: first });
    await waitFor(async () => (await statusOf(second, intent.intent_id)) === 'settled', 5000, 'backfilled settlement');
    assert.equal((await second.app.intents.get(intent.intent_id)).transaction_hash, tx.transaction_id);
    assert.equal(USDT, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  });

  test('Solana: SOL paid with the intent reference and USDT paid by exact amount into the ATA both settle; a failed tx never does', async (t) => {
    const rpc = await startFakeSolanaRpc();
    t.after(() => rpc.close());
    const wallet = Keypair.generate().publicKey.toBase58();
    const payer = Keypair.generate().publicKey.toBase58();
    const p = await payd(t, {
      SOL: { wallet, rpcUrl: rpc.url, pollSeconds: 0.1 },
      USDT_SOL: { wallet, rpcUrl: rpc.url, pollSeconds: 0.1, mint: USDT_MINT },
    }, { store });
    const m = await p.merchant();
    const create = async (body: object) => (await p.api('POST', '/api/v1/intents/create-payment', { body, headers: m.headers })).body;
    const sol = await create({ amount: 0.5, currency: 'SOL', order_id: 'sol-1' });
    const usdt = await create({ amount: 3, currency: 'USDT_SOL', order_id: 'usdt-1' });
    const blockTime = Math.floor(Date.now() / 1000);

    rpc.add(solTransfer({ from: payer, to: wallet, lamports: 500_000_000, reference: sol.reference, err: { InstructionError: [0, 'Custom'] }, blockTime }));
    const good = rpc.add(solTransfer({ from: payer, to: wallet, lamports: 500_000_000, reference: sol.reference, blockTime }));
    const token = rpc.add(tokenTransfer({ payer, wallet, amount: 3_010_000n, blockTime, createAta: true }));

    await waitFor(async () => (await statusOf(p, sol.intent_id)) === 'settled' && (await statusOf(p, usdt.intent_id)) === 'settled', 8000, 'both settlements');
    assert.equal((await p.app.intents.get(sol.intent_id)).transaction_hash, good);
    assert.equal((await p.app.intents.get(usdt.intent_id)).transaction_hash, token);
    assert.equal((await p.app.payments.list({})).length, 2, 'the failed transaction is not a payment');
  });
});

test('payd doctor reports each upstream: ok when reachable, FAIL with exit 1 when not', async (t) => {
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { payd: cli } = await import('../helpers/cli.ts');
  const grid = await startFakeTronGrid();
  t.after(() => grid.close());
  const rpc = await startFakeSolanaRpc();
  t.after(() => rpc.close());
  const dir = mkdtempSync(join(tmpdir(), 'payd-doctor-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const wallet = Keypair.generate().publicKey.toBase58();
  const write = (trongrid: string) =>
    writeFileSync(join(dir, 'payd.config.json'), JSON.stringify({ methods: { USDT_TRC20: { address: MERCHANT, apiUrl: trongrid }, SOL: { wallet, rpcUrl: rpc.url } } }));
  write(grid.url);
  const ok = await cli(['doctor'], { cwd: dir });
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /^ok\s+config/m);
  assert.match(ok.out, /^ok\s+database/m);
  assert.match(ok.out, /^ok\s+methods: USDT_TRC20, SOL$/m);
  assert.match(ok.out, /^ok\s+USDT_TRC20 lag: /m);
  assert.match(ok.out, /^ok\s+SOL lag: /m);
  // Fiat prices are not configured: said once, as what a priced create would answer, not a failure.
  assert.match(ok.out, /^ok\s+pricing: no rate configured for USDT\/INR.*400 PRICING_NOT_CONFIGURED/m);
  assert.equal(ok.out.match(/^ok /gm)?.length, 8, ok.out); // config, database, methods, pricing, and per source: its upstream and its lag
  write('http://127.0.0.1:1');
  const down = await cli(['doctor'], { cwd: dir });
  assert.equal(down.code, 1);
  assert.match(down.out, /^FAIL\s+tron/m);
  assert.match(down.out, /^ok\s+solana/m);
});
