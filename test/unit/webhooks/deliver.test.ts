// However the deadline is noticed (our signal or undici's own timers), the attempt reads "timed out".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errors } from 'undici';
import { attemptDelivery, type HttpPost } from '../../../src/webhooks/deliver.ts';

test('a receiver past the deadline is recorded as timed out, whichever timer fired first', async () => {
  const failures: Error[] = [new errors.HeadersTimeoutError(), new errors.BodyTimeoutError(), new DOMException('The operation was aborted due to timeout', 'TimeoutError')];
  for (const failure of failures) {
    const post: HttpPost = async () => {
      throw failure;
    };
    const r = await attemptDelivery(post, 'http://127.0.0.1:9/', {}, '{}', 1500, () => 0);
    assert.equal(r.error, 'timed out after 1500 ms', failure.name);
    assert.equal(r.statusCode, null);
  }
  const refused: HttpPost = async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  };
  assert.match((await attemptDelivery(refused, 'http://127.0.0.1:9/', {}, '{}', 1500, () => 0)).error ?? '', /ECONNREFUSED/);
});
