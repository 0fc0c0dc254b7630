import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stepConditions, type Observation, type OpenConditions } from '../../../../src/domain/notify/conditions.ts';

const src = (bad: boolean | undefined): Observation => ({ kind: 'source.down', subject: 'UPI', bad, detail: 'stale' });

test('an outage observed many times is one problem, then one recovery carrying its start', () => {
  let open: OpenConditions = {};
  const said: string[] = [];
  const run = (bad: boolean | undefined, now: number) => {
    const step = stepConditions(open, [src(bad)], now);
    open = step.open;
    said.push(...step.transitions.map((t) => `${t.state}@${t.since}`));
  };
  run(false, 1);
  run(true, 2);
  run(true, 3);
  run(undefined, 4); // not known (a restart, the source starting): changes nothing
  run(true, 5);
  run(false, 6);
  run(false, 7);
  assert.deepEqual(said, ['problem@2', 'recovered@2']);
  assert.deepEqual(open, {});
});

test('conditions are independent; one no longer observed closes silently', () => {
  const open: OpenConditions = { 'source.down:UPI': { kind: 'source.down', subject: 'UPI', since: 1 } };
  const step = stepConditions(open, [{ kind: 'upi.silent', subject: 'UPI', bad: true, detail: '3 h' }], 10);
  assert.deepEqual(step.transitions.map((t) => [t.key, t.state]), [['upi.silent:UPI', 'problem']]);
  assert.deepEqual(Object.keys(step.open), ['upi.silent:UPI']);
});
