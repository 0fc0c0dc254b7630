import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGate } from '../../../src/db/pool-gate.ts';
import { rerunning } from '../../../src/db/rerun.ts';

const busy = () => new Error('busy');

test('gate: as many holders as places; the next waits in arrival order and enters when one leaves', async () => {
  const gate = createGate(2, busy);
  await gate.enter(5000);
  await gate.enter(5000);
  const order: number[] = [];
  const third = gate.enter(5000).then(() => order.push(3));
  const fourth = gate.enter(5000).then(() => order.push(4));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(order, [], 'nobody enters while both places are taken');
  gate.leave();
  await third;
  assert.deepEqual(order, [3]);
  gate.leave();
  await fourth;
  assert.deepEqual(order, [3, 4]);
  gate.leave();
  gate.leave();
  await gate.enter(5000); // places are given back
});

test('gate: a waiter gives up after its wait budget with the given error, and its place in line goes to the next', async () => {
  const gate = createGate(1, busy);
  await gate.enter(50);
  const started = Date.now();
  await assert.rejects(gate.enter(50), /busy/);
  assert.ok(Date.now() - started >= 45, 'not before the budget');
  const next = gate.enter(50);
  gate.leave();
  await next; // the timed-out waiter left the line: the place went to this one
});

test('gate: failWaiting answers everyone in line at once with its error (a database known gone), and the places stay counted', async () => {
  const gate = createGate(1, busy);
  await gate.enter(5000);
  const started = Date.now();
  const waiters = [gate.enter(30_000), gate.enter(30_000)];
  gate.failWaiting(() => new Error('unreachable'));
  for (const w of waiters) await assert.rejects(w, /unreachable/);
  assert.ok(Date.now() - started < 1000, 'not after their 30 s wait');
  const next = gate.enter(5000);
  gate.leave();
  await next; // the holder's place passes on as before
});

test('rerunning: runs again on the errors it is told to, with pauses, until it succeeds', async () => {
  let runs = 0;
  const result = await rerunning(
    async () => {
      if (++runs < 4) throw Object.assign(new Error('deadlock'), { code: '40P01' });
      return 'done';
    },
    (err) => (err as { code?: string }).code === '40P01',
    { jitter: () => 0.5 },
  );
  assert.equal(result, 'done');
  assert.equal(runs, 4);
});

test('rerunning: any other error stands at once; a retryable one stands once the time budget is spent', async () => {
  let runs = 0;
  await assert.rejects(
    rerunning(async () => {
      runs++;
      throw new Error('other');
    }, () => false),
    /other/,
  );
  assert.equal(runs, 1);
  runs = 0;
  const started = Date.now();
  await assert.rejects(
    rerunning(async () => {
      runs++;
      throw new Error('again');
    }, () => true, { budgetMs: 300, jitter: () => 1 }),
    /again/,
  );
  const took = Date.now() - started;
  assert.ok(runs > 3, `ran ${runs} times`);
  assert.ok(took >= 290 && took < 3000, `gave up after ${took} ms`);
});
