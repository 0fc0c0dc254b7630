import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { start, solConfig } from '../helpers/solana-harness.ts';
import { FakeLedger, waitFor } from '../helpers/solana-ledger.ts';
import { startFakeSolanaRpc, type FakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { newKey, solTransfer } from '../fakes/solana-tx.ts';

let rpc: FakeSolanaRpc;
before(async () => {
  rpc = await startFakeSolanaRpc();
});
after(async () => {
  await rpc.close();
});

const pay = (wallet: string, lamports: bigint, blockTime?: number) => rpc.add(solTransfer({ from: newKey(), to: wallet, lamports, blockTime }));

describe('Solana source: downtime and first start', () => {
  it('settles payments made while payd was stopped, oldest first, across several pages, without re-reading old ones', async () => {
    const wallet = newKey();
    const ledger = new FakeLedger();
    const first = pay(wallet, 1_000n);
    let run = start('SOL', solConfig(rpc, wallet), { ledger, pageLimit: 2 });
    await waitFor(() => ledger.payments.length === 1, 10_000, 'the first payment');
    await run.stop();

    const missed = [pay(wallet, 2_000n), pay(wallet, 3_000n), pay(wallet, 4_000n), pay(wallet, 5_000n), pay(wallet, 6_000n)];
    const mark = rpc.requests.length;
    run = start('SOL', solConfig(rpc, wallet), { ledger, pageLimit: 2 });
    try {
      await waitFor(() => ledger.payments.length === 6, 10_000, 'the missed payments');
      assert.deepEqual(ledger.payments.map((p) => p.txRef), [first, ...missed]);
      assert.equal(ledger.outcomes.filter((o) => o.kind === 'duplicate').length, 0);
      assert.ok(!rpc.requests.slice(mark).some((r) => r.method === 'getTransaction' && r.params[0] === first), 'the old payment is not fetched again');
      assert.deepEqual(ledger.checkpoints.get(`solana:SOL:${wallet}`), { signature: missed[4], slot: ledger.payments[5].evidence?.slot });
    } finally {
      await run.stop();
    }
  });

  it('on first start looks back one day only', async () => {
    const wallet = newKey();
    const now = Math.floor(Date.now() / 1000);
    const old = pay(wallet, 1_000n, now - 2 * 86_400);
    const recent = pay(wallet, 2_000n, now - 3600);
    const run = start('SOL', solConfig(rpc, wallet));
    try {
      await waitFor(() => run.ledger.payments.length === 1, 10_000, 'the recent payment');
      assert.equal(run.ledger.payments[0].txRef, recent);
      assert.ok(!rpc.requests.some((r) => r.method === 'getTransaction' && r.params[0] === old));
    } finally {
      await run.stop();
    }
  });
});

describe('Solana source: commitment', () => {
  it('does not count a transaction seen at confirmed until it is finalized', async () => {
    const wallet = newKey();
    const sig = rpc.add(solTransfer({ from: newKey(), to: wallet, lamports: 9_000n }), 'confirmed');
    const run = start('SOL', solConfig(rpc, wallet)); // commitment: finalized (the default)
    try {
      const mark = rpc.requests.length;
      await waitFor(() => rpc.count('getSignaturesForAddress', mark) >= 3, 10_000, 'three polls');
      assert.equal(run.ledger.payments.length, 0);
      rpc.finalize(sig);
      await waitFor(() => run.ledger.payments.length === 1, 10_000, 'the finalized payment');
      assert.equal(run.ledger.payments[0].txRef, sig);
    } finally {
      await run.stop();
    }
  });

  it('counts it at confirmed when the operator configured confirmed', async () => {
    const wallet = newKey();
    const sig = rpc.add(solTransfer({ from: newKey(), to: wallet, lamports: 9_000n }), 'confirmed');
    const run = start('SOL', solConfig(rpc, wallet, { commitment: 'confirmed' }));
    try {
      await waitFor(() => run.ledger.payments.length === 1, 10_000, 'the confirmed payment');
      assert.equal(run.ledger.payments[0].txRef, sig);
    } finally {
      await run.stop();
    }
  });

  it('waits for a listed transaction the node cannot serve yet, without skipping it or reordering later ones', async () => {
    const wallet = newKey();
    const lagging = pay(wallet, 1_000n);
    const later = pay(wallet, 2_000n);
    rpc.lag(lagging);
    const run = start('SOL', solConfig(rpc, wallet));
    try {
      const mark = rpc.requests.length;
      await waitFor(() => rpc.count('getTransaction', mark) >= 3, 10_000, 'a few attempts');
      assert.equal(run.ledger.payments.length, 0);
      rpc.served(lagging);
      await waitFor(() => run.ledger.payments.length === 2, 10_000, 'both payments');
      assert.deepEqual(run.ledger.payments.map((p) => p.txRef), [lagging, later]);
    } finally {
      await run.stop();
    }
  });
});

describe('Solana source: RPC faults', () => {
  it('rides out a 429 storm with its own backoff (no hidden retries inside web3.js) and then settles', async () => {
    const wallet = newKey();
    const sig = pay(wallet, 4_200n);
    rpc.failNext(8, { status: 429 });
    const started = Date.now();
    const run = start('SOL', solConfig(rpc, wallet));
    try {
      await waitFor(() => run.ledger.payments.length === 1, 5000, 'the payment after the storm');
      assert.equal(run.ledger.payments[0].txRef, sig);
      const backoffs = run.log.lines.filter((l) => l.level === 'warn' && l.msg.includes('backing off'));
      assert.equal(backoffs.length, 8, 'each 429 reaches our loop once');
      assert.match(String(backoffs[0].fields.error), /429/);
      assert.ok(run.log.lines.some((l) => l.msg.includes('recovered')));
      // web3.js's own retry alone would sleep 0.5+1+2+4 s on one call.
      assert.ok(Date.now() - started < 3000, 'recovered quickly');
    } finally {
      await run.stop();
    }
  });

  it('times out a hung request and recovers', async () => {
    const wallet = newKey();
    const sig = pay(wallet, 4_300n);
    rpc.failNext(1, { delayMs: 1500 });
    const run = start('SOL', solConfig(rpc, wallet), { requestTimeoutMs: 200 });
    try {
      await waitFor(() => run.ledger.payments.length === 1, 10_000, 'the payment after the timeout');
      assert.equal(run.ledger.payments[0].txRef, sig);
      assert.ok(run.log.lines.some((l) => l.level === 'warn' && /timed out after 200 ms/.test(String(l.fields.error))));
    } finally {
      await run.stop();
    }
  });

  it('stops promptly when aborted in the middle of a backoff', async () => {
    const wallet = newKey();
    rpc.failNext(3, { status: 503 });
    const run = start('SOL', solConfig(rpc, wallet), { backoff: { baseMs: 10_000, maxMs: 10_000 } });
    await waitFor(() => run.log.lines.some((l) => l.msg.includes('backing off')), 10_000, 'a failure');
    const t = Date.now();
    await run.stop();
    assert.ok(Date.now() - t < 1000);
    rpc.clearFaults();
  });
});
