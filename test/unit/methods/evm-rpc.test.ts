// Provider refusals as providers send them (test/fixtures/chains/REAL-EVM.md §1 and §2).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify, EvmRpcError, rangeRefusal } from '../../../src/methods/evm/rpc.ts';

const err = (code: number | undefined, message: string, status?: number) => new EvmRpcError(code, message, status);

test('getLogs range refusals are read with the range or cap they suggest', () => {
  // Alchemy free tier (HTTP 400) and paid: an inclusive suggested range.
  assert.deepEqual(rangeRefusal(err(-32600, 'You can make eth_getLogs requests with up to a 500 block range. Based on your parameters, this block range should work: [0x1be4213, 0x1be4406]', 400)), { suggested: { from: 0x1be4213n, to: 0x1be4406n } });
  // Infura: results cap with a suggested range; the bare form without one.
  assert.deepEqual(rangeRefusal(err(-32005, 'query returned more than 10000 results. Try with this block range [0xBDE5F8, 0x102DBCC].')), { suggested: { from: 0xbde5f8n, to: 0x102dbccn } });
  assert.deepEqual(rangeRefusal(err(-32005, 'query returned more than 10000 results')), {});
  // Block caps stated in the message.
  assert.deepEqual(rangeRefusal(err(-32602, 'range 1000000 exceeds limit of 10000')), { cap: 10_000n });
  assert.deepEqual(rangeRefusal(err(-32614, 'eth_getLogs is limited to a 10,000 range', 413)), { cap: 10_000n });
  assert.deepEqual(rangeRefusal(err(-32000, 'exceed maximum block range: 5000')), { cap: 5_000n });
  assert.deepEqual(rangeRefusal(err(-32005, 'please limit the query to at most 1000 blocks')), { cap: 1_000n });
  assert.deepEqual(rangeRefusal(err(undefined, 'eth_getLogs block range too large, range: 99991, max: 3500')), { cap: 3_500n });
  assert.deepEqual(rangeRefusal(err(-32000, 'block range too large')), {});
  // BSC's bare -32005 is its rate limit, and a rate limit is no range refusal.
  assert.equal(rangeRefusal(err(-32005, 'limit exceeded')), undefined);
  assert.equal(rangeRefusal(err(429, 'Your app has exceeded its compute units per second capacity.', 429)), undefined);
  assert.equal(rangeRefusal(new Error('socket hang up')), undefined);
});

test('rate limits rest the endpoint; other failures back off', () => {
  assert.deepEqual(classify(err(-32005, 'limit exceeded')), { kind: 'throttled' });
  assert.deepEqual(classify(err(-32005, 'daily request count exceeded, request rate limited', 429)), { kind: 'throttled' });
  assert.deepEqual(classify(err(-32007, '20/second request limit reached - reduce calls per second or upgrade your account at quicknode.com')), { kind: 'throttled' });
  assert.deepEqual(classify(err(-32016, 'over rate limit', 429)), { kind: 'throttled' });
  assert.deepEqual(classify(new EvmRpcError(429, 'Too Many Requests', 429, 2000)), { kind: 'throttled', retryAfterMs: 2000 });
  assert.deepEqual(classify(err(-32000, 'header not found')), { kind: 'error' });
  assert.deepEqual(classify(new Error('timed out')), { kind: 'error' });
});
