import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemRandom } from '../../src/system.ts';

test('system randomness: floats in [0, 1), uuids v4, bytes of the asked length', () => {
  for (let i = 0; i < 1000; i++) {
    const f = systemRandom.float();
    assert.ok(f >= 0 && f < 1);
  }
  assert.match(systemRandom.uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(systemRandom.bytes(32).length, 32);
});
