import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../../src/methods/load-config.ts';

const ADDRESS = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const two = [{ url: 'https://a.example' }, { url: 'https://b.example' }];
const parse = (section: Record<string, unknown>) => parseConfig({ methods: { USDT_POLYGON: { address: ADDRESS, ...section } } }, '/srv/payd', {}).methods.USDT_POLYGON!;

test('EVM confirmations: `endpoints` as for TRON and Solana (at most the endpoints configured), `blocks` the depth rule', () => {
  assert.equal(parse({ endpoints: two }).confirmations, undefined, 'absent: the pool takes 2 where two exist');
  assert.deepEqual(parse({ endpoints: two, confirmations: { endpoints: 1, blocks: 40 } }).confirmations, { endpoints: 1, blocks: 40 });
  assert.deepEqual(parse({ confirmations: { blocks: 40 } }).confirmations, { blocks: 40 });
  assert.throws(() => parse({ endpoints: two, confirmations: { endpoints: 3 } }), /methods\.USDT_POLYGON\.confirmations: cannot exceed the number of endpoints configured/);
  assert.throws(() => parse({ confirmations: { endpoints: 2 } }), /methods\.USDT_POLYGON\.confirmations: cannot exceed the number of endpoints configured/);
  assert.throws(() => parse({ endpoints: two, confirmations: { endpoints: 0 } }), /confirmations\.endpoints/);
  // The depth alone as a bare number is not a shape payd reads: it says where it goes.
  assert.throws(() => parse({ confirmations: 12 }), /methods\.USDT_POLYGON\.confirmations/);
});
