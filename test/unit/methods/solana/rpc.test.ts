import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Connection, type ConnectionConfig } from '@solana/web3.js';
import { historyCommitment, openConnection } from '../../../../src/methods/solana/rpc.ts';

describe('Solana RPC connection', () => {
  it('reads history at the configured commitment; processed (unsupported there) is read as confirmed', () => {
    assert.equal(historyCommitment('finalized'), 'finalized');
    assert.equal(historyCommitment('confirmed'), 'confirmed');
    assert.equal(historyCommitment('processed'), 'confirmed');
    assert.equal(historyCommitment(undefined), 'finalized');
  });

  it('leaves 429s to our backoff and gives every request a deadline', async () => {
    let seen: ConnectionConfig | undefined;
    // A fetch that only ever ends by its abort signal: a hung RPC.
    const hung: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));
    const conn = openConnection(
      { rpcUrl: 'http://127.0.0.1:9', wsUrl: null, requestTimeoutMs: 50, fetch: hung, connectionFactory: (url, c) => ((seen = c), new Connection(url, c)) },
      new AbortController().signal,
    );
    assert.equal(seen?.disableRetryOnRateLimit, true);
    const t = Date.now();
    await assert.rejects(conn.getSlot('finalized'), /timed out after 50 ms/);
    assert.ok(Date.now() - t < 1000);
  });
});

describe('Solana RPC answers', () => {
  it('an answer larger than the client reads is refused while it streams', async () => {
    let pulled = 0;
    const endless: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull: (c) => {
            pulled += 1 << 20;
            c.enqueue(new Uint8Array(1 << 20).fill(0x20));
          },
        }),
        { status: 200 },
      );
    const conn = openConnection({ rpcUrl: 'http://127.0.0.1:9', wsUrl: null, requestTimeoutMs: 30_000, fetch: endless }, new AbortController().signal);
    await assert.rejects(conn.getSlot('finalized'), /larger than/);
    assert.ok(pulled <= 64 << 20, `read ${pulled} bytes before refusing`);
  });
});
