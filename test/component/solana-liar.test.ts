/**
 * The Solana source with two RPC endpoints where one lies or lags, without payd: one claims slot
 * 9,000,000,000 and lists a failed signature there plus a payment no other endpoint knows; one is
 * stuck 25 slots behind its peer while preferred by weight. The fabrications move no money and no
 * checkpoint; real payments before and after them settle; a payment visible only on the healthy
 * endpoint is read by the next poll. With two endpoints a payment settles once the
 * second one returns it too; one the second contradicts never settles.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { stopwatch } from '../helpers/stopwatch.ts';
import { createSolanaSource } from '../../src/methods/solana/source.ts';
import type { Checkpoint } from '../../src/methods/solana/signatures.ts';
import { assetOf, solConfig } from '../helpers/solana-harness.ts';
import { FakeLedger, recordingLogger, testRandom, waitFor } from '../helpers/solana-ledger.ts';
import { failedTx, startFakeSolanaRpc, type FakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { newKey, newSignature, solTransfer } from '../fakes/solana-tx.ts';

const POLL_MS = 100;
const TIMEOUT_MS = 1000;
const BACKOFF_MAX_MS = 200;
const HEAD_WAIT_MS = 300;
/**
 * "By the next poll", as a bound: the poll under way when the payment appeared, the next one, and
 * one failed request on the way (its timeout, the head wait, a backoff with its 20 % jitter), counted
 * in this process's running time (stopwatch), so a loaded machine's stalls are not the source's.
 */
const PROMPT_MS = 2 * POLL_MS + TIMEOUT_MS + HEAD_WAIT_MS + BACKOFF_MAX_MS * 1.2;
const FAR_SLOT = 9_000_000_000;

/** Two endpoints over one chain (`b` a replica of `a`); `b` is preferred (weight 2 unless `bWeight`). */
async function twoEndpoints(t: TestContext, more: { confirmations?: { endpoints: number } } = {}, o: { bWeight?: number; rescanMs?: number } = {}) {
  const a = await startFakeSolanaRpc();
  const b = await startFakeSolanaRpc(a);
  t.after(() => Promise.all([a.close(), b.close()]));
  const wallet = newKey();
  const ledger = new FakeLedger();
  const log = recordingLogger();
  const config = { ...solConfig(a, wallet, { pollSeconds: POLL_MS / 1000 }), rpcUrl: undefined, endpoints: [{ url: a.url, weight: 1 }, { url: b.url, weight: o.bWeight ?? 2 }], ...more };
  const source = createSolanaSource(assetOf('SOL'), config, {
    ledger,
    clock: { now: () => Date.now() },
    random: testRandom(),
    log,
    backoff: { baseMs: 50, maxMs: BACKOFF_MAX_MS },
    requestTimeoutMs: TIMEOUT_MS,
    headWaitMs: HEAD_WAIT_MS,
    idleScanMs: 0,
    ...(o.rescanMs !== undefined ? { rescanMs: o.rescanMs } : {}),
  });
  const ac = new AbortController();
  const done = source.run(ac.signal);
  t.after(async () => {
    ac.abort();
    await done;
  });
  const pay = (on: FakeSolanaRpc, lamports: bigint) => on.add(solTransfer({ from: newKey(), to: wallet, lamports }));
  /** A payment that lands on the chain (both endpoints return it) but that `b` leaves out of its listings. */
  const payWithheld = (lamports: bigint) => {
    const tx = solTransfer({ from: newKey(), to: wallet, lamports });
    b.withhold(tx.signature);
    return a.add(tx);
  };
  const read = (sig: string) => ledger.payments.filter((p) => p.txRef === sig).length;
  const checkpoint = () => [...ledger.checkpoints.values()][0] as Checkpoint | undefined;
  /** Waits for `n` more signature listings on `fake` (cycles that went by). */
  const listings = async (fake: FakeSolanaRpc, n: number) => {
    const from = fake.count('getSignaturesForAddress');
    await waitFor(() => fake.count('getSignaturesForAddress') >= from + n, 8000, `${n} listings`);
  };
  return { a, b, wallet, ledger, log, pay, payWithheld, read, checkpoint, listings };
}

test('an RPC endpoint claiming slot 9e9, with a failed signature there and a payment only it serves, moves no money and no checkpoint', async (t) => {
  const { a, b, wallet, pay, read, checkpoint, listings, ledger } = await twoEndpoints(t);
  const first = pay(a, 1_000_001n);
  await waitFor(() => read(first) === 1, 8000, 'a first real payment');
  // B, preferred and at the same slot as A, lists a failed signature at slot 9e9 and a payment only it knows.
  const failed = b.addOwn(failedTx(wallet, newSignature()), FAR_SLOT);
  const fabricated = b.addOwn(solTransfer({ from: newKey(), to: wallet, lamports: 7_777_777n }));
  await listings(b, 3);
  let cp = checkpoint();
  assert.ok(cp && cp.slot < FAR_SLOT && cp.signature !== failed, `checkpoint ${JSON.stringify(cp)} stays on agreed slots`);
  assert.equal(read(fabricated), 0);
  // Then B claims slot 9e9 as its head too.
  b.behindSlots = -FAR_SLOT;
  await listings(a, 3);
  cp = checkpoint();
  assert.ok(cp && cp.slot < FAR_SLOT && cp.signature !== failed, `checkpoint ${JSON.stringify(cp)} stays on agreed slots`);
  // Real payments after the fabrications still settle.
  const later = pay(a, 1_000_002n);
  await waitFor(() => read(later) === 1, 8000, 'a real payment after the fabrications');
  await listings(a, 3);
  assert.equal(read(fabricated), 0, 'a payment no second endpoint returns is not handed to the ledger');
  assert.deepEqual(ledger.payments.map((p) => p.txRef), [first, later]);
  assert.ok((checkpoint()?.slot ?? 0) < FAR_SLOT);
});

test('an endpoint stuck 25 slots behind its peer stops being asked first: a payment only the healthy one shows is read by the next poll', async (t) => {
  const { a, b, pay, read, listings } = await twoEndpoints(t, { confirmations: { endpoints: 1 } });
  await listings(b, 1);
  b.behindSlots = 25;
  await listings(b, 2);
  const since = stopwatch();
  const sig = pay(a, 2_000_001n);
  await waitFor(() => read(sig) === 1, 8000, 'the payment visible on the healthy endpoint');
  const ms = since.stop();
  assert.ok(ms < PROMPT_MS, `read after ${ms.toFixed(0)} ms of this process's running time (bound ${PROMPT_MS} ms)`);
  // While it trails, B is no longer the one asked each cycle: A serves the listings.
  const fromA = a.count('getSignaturesForAddress');
  const fromB = b.count('getSignaturesForAddress');
  await listings(a, 5);
  assert.ok(b.count('getSignaturesForAddress') - fromB <= a.count('getSignaturesForAddress') - fromA, 'the trailing endpoint is asked no more than the healthy one');
});

test('with two endpoints a payment settles once the second returns it; one the second contradicts never settles', async (t) => {
  const { a, b, wallet, pay, read, listings, ledger, log } = await twoEndpoints(t);
  await listings(b, 1);
  b.behindSlots = 40; // B has not reached the payment's slot yet
  const sig = pay(a, 3_000_001n);
  await listings(a, 4);
  assert.equal(read(sig), 0, 'not settled on one endpoint alone');
  assert.equal(ledger.rejected.length, 0, 'nor rejected');
  const visible = stopwatch();
  b.behindSlots = 0;
  await waitFor(() => read(sig) === 1, 8000, 'the payment once B returns it');
  const took = visible.stop();
  assert.ok(took < PROMPT_MS, `read after ${took.toFixed(0)} ms of this process's running time (bound ${PROMPT_MS} ms)`);
  // B answers the same signature with another amount: not settled.
  const payer = newKey();
  const real = solTransfer({ from: payer, to: wallet, lamports: 4_000_001n });
  const other = solTransfer({ from: payer, to: wallet, lamports: 4_000_002n });
  b.addOwn({ ...other, signature: real.signature, transaction: { ...other.transaction, signatures: [real.signature] } });
  a.add(real);
  await listings(a, 4);
  assert.equal(read(real.signature), 0);
  assert.ok(log.lines.some((l) => l.msg === 'solana endpoints disagree about a transaction; not settled' && l.fields.tx === real.signature));
});

test('an endpoint that leaves a payment out of its listings while serving the scan moves no checkpoint past it: the payment settles, once', async (t) => {
  // B is preferred by far, so it is the one that lists each cycle.
  const { a, ledger, pay, payWithheld, read } = await twoEndpoints(t, {}, { bWeight: 10 });
  const first = pay(a, 5_000_000n);
  await waitFor(() => read(first) === 1, 8000, 'a first real payment');
  ledger.intents.push({ id: 'withheld', method: 'SOL', payMinor: 5_000_001n }, { id: 'later', method: 'SOL', payMinor: 5_000_002n });
  // Landed together: B lists the later one (new to the ledger) and leaves the earlier one out.
  const withheld = payWithheld(5_000_001n);
  const later = pay(a, 5_000_002n);
  await waitFor(() => read(later) === 1, 8000, 'the payment B lists');
  await waitFor(() => read(withheld) === 1, 4 * POLL_MS + 4000, 'the payment B withholds');
  const settled = ledger.outcomes.filter((x) => x.kind === 'settled').map((x) => (x.kind === 'settled' ? x.intentId : ''));
  assert.deepEqual(settled.sort(), ['later', 'withheld'], 'each intent settled exactly once');
});

test('the re-scan lists recent signatures on another endpoint than the sweep: a payment the serving endpoint withheld past the checkpoint settles', async (t) => {
  // One endpoint's word is enough here (the operator's choice), so only the re-scan can find what B withholds.
  const { a, ledger, log, pay, payWithheld, read, checkpoint } = await twoEndpoints(t, { confirmations: { endpoints: 1 } }, { bWeight: 10, rescanMs: 500 });
  const first = pay(a, 6_000_000n);
  await waitFor(() => read(first) === 1, 8000, 'a first real payment');
  ledger.intents.push({ id: 'withheld', method: 'SOL', payMinor: 6_000_001n });
  const withheld = payWithheld(6_000_001n);
  const later = pay(a, 6_000_002n);
  await waitFor(() => read(later) === 1 && checkpoint()?.signature === later, 8000, 'the checkpoint past the withheld payment');
  await waitFor(() => read(withheld) === 1, 500 + 4 * POLL_MS + 4000, 'the re-scan to find the withheld payment');
  assert.deepEqual(ledger.outcomes.filter((x) => x.kind === 'settled').length, 1);
  assert.ok(log.lines.some((l) => l.msg === 'solana re-scan found a payment the listing had missed' && l.fields.tx === withheld));
});

test('doctor: with a single RPC endpoint, says that payd trusts that provider entirely', async (t) => {
  const a = await startFakeSolanaRpc();
  t.after(() => a.close());
  const source = createSolanaSource(assetOf('SOL'), solConfig(a, newKey()), { ledger: new FakeLedger(), clock: { now: () => Date.now() }, random: testRandom(), log: recordingLogger() });
  const r = await source.check!(AbortSignal.timeout(5000));
  assert.equal(r.ok, true, r.message);
  assert.match(r.message, /only one endpoint: payd trusts that provider entirely/);
});
