/**
 * The Solana source with two RPC endpoints over one chain (a fake and its replica), without payd:
 * one trails the other by hundreds of slots, then the one ahead stops answering (every request
 * hangs past the timeout) while the other is still behind, then the trailing one catches up and
 * the other recovers. Every payment is read once, by the next poll after it is visible on a
 * healthy endpoint (PROMPT_MS of this process's running time); the lag reported follows the newest slot either endpoint showed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopwatch } from '../helpers/stopwatch.ts';
import { createSolanaSource } from '../../src/methods/solana/source.ts';
import { runWithCycleReporter, type CycleReporter } from '../../src/runtime/cycle.ts';
import { assetOf, solConfig } from '../helpers/solana-harness.ts';
import { FakeLedger, recordingLogger, testRandom, waitFor } from '../helpers/solana-ledger.ts';
import { startFakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { newKey, solTransfer } from '../fakes/solana-tx.ts';

const POLL_MS = 100;
const TIMEOUT_MS = 300;
const BACKOFF_MAX_MS = 200;
const HEAD_WAIT_MS = 200;
/**
 * "By the next poll", as a bound: the poll under way when the payment appeared, the next one, and
 * one failed request on the way (its timeout, the head wait, a backoff with its 20 % jitter), counted
 * in this process's running time (stopwatch), so a loaded machine's stalls are not the source's.
 */
const PROMPT_MS = 2 * POLL_MS + TIMEOUT_MS + HEAD_WAIT_MS + BACKOFF_MAX_MS * 1.2;

test('two Solana RPC endpoints at different slots, one timing out: every payment once, promptly; lag follows the newest slot', async (t) => {
  const a = await startFakeSolanaRpc();
  const b = await startFakeSolanaRpc(a); // another provider over the same chain
  t.after(() => Promise.all([a.close(), b.close()]));
  const wallet = newKey();
  const ledger = new FakeLedger();
  const calls = new Map<string, number>();
  const ingest = ledger.ingest.bind(ledger);
  ledger.ingest = (p, cp) => {
    calls.set(p.txRef, (calls.get(p.txRef) ?? 0) + 1);
    return ingest(p, cp);
  };
  const log = recordingLogger();
  const metrics: { endpoint: string; outcome: string }[] = [];
  // One endpoint's word is enough here (the operator's choice): this is about staying available.
  const config = { ...solConfig(a, wallet, { pollSeconds: POLL_MS / 1000 }), rpcUrl: undefined, endpoints: [{ url: a.url, weight: 1 }, { url: b.url, weight: 1 }], confirmations: { endpoints: 1 } };
  const source = createSolanaSource(assetOf('SOL'), config, {
    ledger,
    clock: { now: () => Date.now() },
    random: testRandom(),
    log,
    backoff: { baseMs: 50, maxMs: BACKOFF_MAX_MS },
    requestTimeoutMs: TIMEOUT_MS,
    headWaitMs: HEAD_WAIT_MS,
    idleScanMs: 0,
    upstreamMetrics: { upstreamRequest: (endpoint, outcome) => metrics.push({ endpoint, outcome }), upstreamThrottled: () => {} },
  });
  const caughtUp: { at: number; asOf: number }[] = [];
  const reporter: CycleReporter = { interval: () => {}, ok: () => {}, failed: () => {}, caughtUp: (asOf) => caughtUp.push({ at: Date.now(), asOf }) };
  const ac = new AbortController();
  const done = runWithCycleReporter(reporter, ac.signal, (s) => source.run(s));
  t.after(async () => {
    ac.abort();
    await done;
  });
  const pay = (lamports: bigint) => a.add(solTransfer({ from: newKey(), to: wallet, lamports }));
  const readOnce = async (sig: string, what: string) => {
    const since = stopwatch();
    await waitFor(() => ledger.payments.some((p) => p.txRef === sig), 5000, what);
    return since.stop();
  };
  await waitFor(() => caughtUp.length > 0, 5000, 'a first scan');

  // B trails by 500 slots (about 200 s): a payment only A shows is read through A.
  b.behindSlots = 500;
  const p1 = pay(1_000_001n);
  const p1ms = await readOnce(p1, 'a payment only the endpoint ahead shows');

  // A stops answering (every request hangs past the 300 ms timeout) while B is still behind.
  a.failNext(1_000_000, { delayMs: 1000 });
  const stalled = Date.now();
  const p2 = pay(1_000_002n);
  const reports = caughtUp.length;
  await waitFor(() => caughtUp.length >= reports + 3, 8000, 'scans on the trailing endpoint alone');
  assert.ok(!ledger.payments.some((p) => p.txRef === p2), 'not visible on a healthy endpoint yet');
  const behind = caughtUp.slice(reports);
  assert.ok(behind.every((c) => c.asOf < stalled), `the lag keeps counting: ${JSON.stringify(behind.map((c) => c.at - c.asOf))}`);
  // B catches up: the payment is read by the next poll after it shows there.
  b.behindSlots = 0;
  const p2ms = await readOnce(p2, 'the payment once B caught up');
  await waitFor(() => caughtUp.some((c) => c.asOf >= stalled), 5000, 'a scan caught up to now');

  // A recovers; both serve again.
  a.clearFaults();
  const p3 = pay(1_000_003n);
  const p3ms = await readOnce(p3, 'a payment after A recovered');

  assert.deepEqual(ledger.payments.map((p) => p.txRef), [p1, p2, p3]);
  for (const sig of [p1, p2, p3]) assert.equal(calls.get(sig), 1, 'each transaction read and handed over once');
  for (const ms of [p1ms, p2ms, p3ms]) assert.ok(ms < PROMPT_MS, `read after ${ms.toFixed(0)} ms of this process's running time (bound ${PROMPT_MS} ms)`);
  assert.ok(metrics.some((m) => m.endpoint === a.url && m.outcome === 'error'), 'the timeouts count against A');
  assert.ok(metrics.some((m) => m.endpoint === b.url && m.outcome === 'ok'));
});
