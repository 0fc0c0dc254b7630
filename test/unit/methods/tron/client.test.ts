import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRetryAfter, trc20Url } from '../../../../src/methods/tron/client.ts';

test('the listing URL asks for confirmed USDT transfers both ways (outgoing rows net incoming ones), oldest first, in full pages', () => {
  const url = new URL(
    trc20Url('https://api.trongrid.io/', { address: 'TJmmqjb1DK9TTZbQXzRQ2AuA94z4gKAPFh', contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', minTimestamp: 5, limit: 200, fingerprint: 'fp' }),
  );
  assert.equal(url.pathname, '/v1/accounts/TJmmqjb1DK9TTZbQXzRQ2AuA94z4gKAPFh/transactions/trc20');
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    only_confirmed: 'true',
    contract_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    limit: '200',
    order_by: 'block_timestamp,asc',
    min_timestamp: '5',
    fingerprint: 'fp',
  });
});

test('an apiUrl with a path prefix keeps it', () => {
  const url = new URL(trc20Url('http://proxy.local/tron', { address: 'T1', contract: 'T2', limit: 1 }));
  assert.equal(url.pathname, '/tron/v1/accounts/T1/transactions/trc20');
  assert.equal(url.searchParams.has('min_timestamp'), false);
});

test('Retry-After is read as seconds or a date, and capped', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('3', now, 60_000), 3000);
  assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now, 60_000), 10_000);
  assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now, 60_000), 0);
  assert.equal(parseRetryAfter('86400', now, 60_000), 60_000);
  assert.equal(parseRetryAfter(null, now, 60_000), undefined);
  assert.equal(parseRetryAfter('soon', now, 60_000), undefined);
});

test('TronGrid faults are sorted by status and its words; a rate limit is never a key problem', async () => {
  const { classify, errorText, suspensionMs } = await import('../../../../src/methods/tron/client.ts');
  // Bodies as recorded (test/fixtures/chains/REAL-UPSTREAMS.md §1.3).
  const anon429 = errorText({ Error: 'request rate of (getTrc20TransactionsByAccount) exceeded the allowed_rps(1), and the query server is suspended for 5 s. To obtain higher request quotas … API Key …' });
  const keyed403 = errorText({ success: false, error: 'The key exceeds the frequency limit(15), and the query server is suspended for 30s', statusCode: 403 });
  const badKey = errorText({ Error: 'ApiKey not exists' });
  assert.equal(classify(429, anon429), 'rate_limited');
  assert.equal(classify(403, keyed403), 'rate_limited', 'a keyed quota 403 is a rate limit although it names the key');
  assert.equal(classify(403, errorText({ Error: 'request rate exceeded the allowed_rps(10), and the query server is suspended for 5 s' })), 'rate_limited');
  assert.equal(classify(503, undefined), 'rate_limited');
  assert.equal(classify(200, anon429), 'rate_limited');
  assert.equal(classify(401, badKey), 'key_rejected');
  assert.equal(classify(403, undefined), 'key_rejected');
  assert.equal(classify(500, undefined), 'upstream');
  assert.equal(classify(404, errorText({ success: false, statusCode: 404, error: 'Not Found' })), 'upstream');
  // The wait is in the prose: "5 s" and "30s" alike, plus half a second; capped.
  assert.equal(suspensionMs(anon429, 60_000), 5500);
  assert.equal(suspensionMs(keyed403, 60_000), 30_500);
  assert.equal(suspensionMs(keyed403, 10_000), 10_000);
  assert.equal(suspensionMs(badKey, 60_000), undefined);
});

test('an answer larger than the client reads is refused while it streams, never held whole in memory', async () => {
  const { createTronGridClient } = await import('../../../../src/methods/tron/client.ts');
  type Fetch = import('../../../../src/methods/tron/client.ts').Fetch;
  let pulled = 0;
  // A provider (or something posing as one) that answers 200 with an endless JSON array.
  const endless: typeof fetch = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start: (c) => c.enqueue(new TextEncoder().encode('{"data":[')),
        pull: (c) => {
          pulled += 1 << 20;
          c.enqueue(new Uint8Array(1 << 20).fill(0x20));
        },
      }),
      { status: 200 },
    );
  const client = createTronGridClient({ apiUrl: 'http://127.0.0.1:9', fetch: endless as unknown as Fetch, timeoutMs: 30_000, now: () => Date.now() });
  await assert.rejects(client.solidifiedHead(new AbortController().signal), /larger than/);
  assert.ok(pulled <= 64 << 20, `read ${pulled} bytes before refusing`);
});
