import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Connection, type Commitment, type LogsCallback, type LogsFilter, PublicKey } from '@solana/web3.js';
import type { Clock } from '../../src/domain/ports.ts';
import { associatedTokenAddress } from '../../src/methods/solana/accounts.ts';
import { createPoller } from '../../src/methods/solana/poller.ts';
import { openConnection } from '../../src/methods/solana/rpc.ts';
import { createSolanaSource } from '../../src/methods/solana/source.ts';
import { createUpstreamPool } from '../../src/methods/upstream-pool.ts';
import { assetOf, start, solConfig, usdtConfig } from '../helpers/solana-harness.ts';
import { FakeLedger, recordingLogger, testRandom, waitFor } from '../helpers/solana-ledger.ts';
import { startFakeSolanaRpc, type FakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { newKey, solTransfer, USDT_MINT } from '../fakes/solana-tx.ts';

let rpc: FakeSolanaRpc;
const ac = new AbortController();
before(async () => {
  rpc = await startFakeSolanaRpc();
});
after(async () => {
  ac.abort();
  await rpc.close();
});

const pay = (wallet: string, lamports: bigint) => rpc.add(solTransfer({ from: newKey(), to: wallet, lamports }));

function pollerFor(wallet: string, ledger: FakeLedger, clock: Clock = { now: () => Date.now() }, maxUnavailableCycles = 30) {
  const conn = openConnection({ rpcUrl: rpc.url, wsUrl: null, requestTimeoutMs: 2000 }, ac.signal);
  const pool = createUpstreamPool({ endpoints: [{ url: rpc.url, weight: 1, conn }], clock, random: testRandom(), backoff: { baseMs: 20, maxMs: 100 }, behindBy: 150 });
  return createPoller({
    pool,
    target: { kind: 'native', method: 'SOL', decimals: 9, wallet, account: wallet },
    commitment: 'finalized',
    ledger,
    clock,
    log: recordingLogger(),
    pageLimit: 1000,
    maxPages: 10,
    firstStartLookbackMs: 86_400_000,
    idleScanMs: 60_000,
    maxUnavailableCycles,
    rescan: { everyMs: 600_000, windowMs: 86_400_000 },
  });
}

/** Runs one cycle and returns the RPC calls it made, by method. */
async function cycle(poller: ReturnType<typeof pollerFor>) {
  const mark = rpc.requests.length;
  await poller.tick(ac.signal);
  return { slots: rpc.count('getSlot', mark), signatures: rpc.count('getSignaturesForAddress', mark), transactions: rpc.count('getTransaction', mark), total: rpc.requests.length - mark };
}

const withIntents = (n: number) => {
  const ledger = new FakeLedger();
  for (let i = 0; i < n; i++) ledger.intents.push({ id: `i${i}`, method: 'SOL', payMinor: 1_000_000n + BigInt(i) * 1000n, reference: newKey() });
  return ledger;
};

describe('Solana source: cost per cycle', () => {
  it('makes the same RPC calls with 1 or 1,000 open intents: one slot read (for the lag), one listing, one fetch per new transaction', async () => {
    const wallet = newKey();
    for (let i = 0; i < 3; i++) pay(wallet, 5_000n + BigInt(i));
    const one = pollerFor(wallet, withIntents(1));
    const many = pollerFor(wallet, withIntents(1000));

    const first = [await cycle(one), await cycle(many)];
    assert.deepEqual(first[0], { slots: 1, signatures: 1, transactions: 3, total: 5 });
    assert.deepEqual(first[1], first[0]);

    pay(wallet, 7_000n);
    pay(wallet, 8_000n);
    const second = [await cycle(one), await cycle(many)];
    assert.deepEqual(second[0], { slots: 1, signatures: 1, transactions: 2, total: 4 });
    assert.deepEqual(second[1], second[0]);

    const quiet = [await cycle(one), await cycle(many)];
    assert.deepEqual(quiet, [{ slots: 1, signatures: 1, transactions: 0, total: 2 }, { slots: 1, signatures: 1, transactions: 0, total: 2 }]);
  });

  it('with no open intent polls the RPC at most once a minute, and every cycle again once an intent opens', async () => {
    const wallet = newKey();
    let now = Date.now();
    const ledger = new FakeLedger();
    const poller = pollerFor(wallet, ledger, { now: () => now });
    // A scan is a slot read (for the lag) and a listing.
    assert.equal((await cycle(poller)).total, 2);
    now += 5_000;
    assert.equal((await cycle(poller)).total, 0);
    ledger.intents.push({ id: 'x', method: 'SOL', payMinor: 1n });
    assert.equal((await cycle(poller)).total, 2);
    ledger.intents.length = 0;
    now += 61_000;
    assert.equal((await cycle(poller)).total, 2, 'unmatched payments are still recorded within a minute');
  });
});

describe('Solana source: a transaction the node never serves', () => {
  it('is set aside for the operator after a bounded number of cycles, and later payments still settle', async () => {
    const wallet = newKey();
    const ledger = withIntents(1);
    const lost = pay(wallet, 1_000n);
    const later = pay(wallet, 2_000n);
    rpc.lag(lost);
    const poller = pollerFor(wallet, ledger, undefined, 3);
    await poller.tick(ac.signal);
    await poller.tick(ac.signal);
    assert.equal(ledger.payments.length, 0, 'the later payment waits behind it at first');
    await poller.tick(ac.signal);
    assert.deepEqual(ledger.rejected.map((r) => [r.ref, r.reason]), [[`solana:${lost}`, 'transaction_unavailable']]);
    assert.deepEqual(ledger.payments.map((p) => p.txRef), [later]);
  });
});

describe('Solana source: payd doctor', () => {
  const deps = () => ({ ledger: new FakeLedger(), clock: { now: () => Date.now() }, random: testRandom(), log: recordingLogger() });

  it('reports the RPC version, slot and the watched token account, without printing the RPC URL secret', async () => {
    const wallet = newKey();
    const source = createSolanaSource(assetOf('USDT_SOL'), usdtConfig(rpc, wallet, { rpcUrl: `${rpc.url}/?api-key=s3cr3t` }), deps());
    const r = await source.check(ac.signal);
    assert.equal(r.ok, true, r.message);
    assert.match(r.message, /solana-core 2\.2\.14/);
    assert.ok(r.message.includes(associatedTokenAddress(wallet, USDT_MINT)));
    assert.ok(!r.message.includes('s3cr3t'));
  });

  it('fails with a clear message when the RPC is unreachable or the wallet is not a key', async () => {
    const down = await startFakeSolanaRpc();
    const url = down.url;
    await down.close();
    const unreachable = await createSolanaSource(assetOf('SOL'), { ...solConfig(rpc, newKey()), rpcUrl: url }, deps()).check(ac.signal);
    assert.equal(unreachable.ok, false);
    assert.match(unreachable.message, /unreachable/);
    const bad = await createSolanaSource(assetOf('SOL'), solConfig(rpc, 'not-a-key'), deps()).check(ac.signal);
    assert.deepEqual(bad, { ok: false, message: 'wallet not-a-key is not a valid Solana public key' });
  });
});

describe('Solana source: push wake-ups', () => {
  it('with wsUrl, a logs notification triggers a poll at once instead of waiting for the next interval', async () => {
    const subscriptions: { account: string; commitment?: Commitment }[] = [];
    let notify: (() => void) | undefined;
    let unsubscribed = false;
    // Stands in for the websocket: web3.js's own onLogs is replaced, everything else is the real Connection.
    class PushConnection extends Connection {
      override onLogs(filter: LogsFilter, callback: LogsCallback, commitment?: Commitment): number {
        subscriptions.push({ account: (filter as PublicKey).toBase58(), commitment });
        notify = () => callback({ signature: 'x', err: null, logs: [] }, { slot: 0 });
        return 1;
      }
      override async removeOnLogsListener(): Promise<void> {
        unsubscribed = true;
      }
    }
    const wallet = newKey();
    const mark = rpc.requests.length;
    const run = start('SOL', solConfig(rpc, wallet, { wsUrl: 'ws://127.0.0.1:9', pollSeconds: 30 }), {
      connectionFactory: (url, config) => new PushConnection(url, config),
    });
    try {
      await waitFor(() => rpc.count('getSignaturesForAddress', mark) === 1, 3000, 'the first poll');
      assert.deepEqual(subscriptions, [{ account: wallet, commitment: 'finalized' }]);
      const sig = pay(wallet, 3_000n);
      notify!();
      await waitFor(() => run.ledger.payments.length === 1, 2000, 'the pushed payment');
      assert.equal(run.ledger.payments[0].txRef, sig);
    } finally {
      await run.stop();
    }
    assert.equal(unsubscribed, true);
  });
});
