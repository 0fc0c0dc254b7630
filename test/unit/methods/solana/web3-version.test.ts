import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { Connection } from '@solana/web3.js';
import { MAX_TRANSACTION_VERSION } from '../../../../src/methods/solana/versions.ts';
import { startFakeSolanaRpc } from '../../../fakes/solana-rpc.ts';
import { newKey, solTransfer } from '../../../fakes/solana-tx.ts';

// Mainnet serves v1 transactions since 2026-09-15; @solana/web3.js before 1.99 cannot decode them
// and a source built on it would stall on the first one. Both the declared floor and the installed copy count.
const atLeast = (v: string, min: number[]) => {
  const parts = v.split('.').map(Number);
  for (let i = 0; i < min.length; i++) if (parts[i] !== min[i]) return parts[i] > min[i];
  return true;
};

describe('@solana/web3.js reads v1 transactions', () => {
  it('package.json cannot resolve to a version older than 1.99', () => {
    const range: string = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')).dependencies['@solana/web3.js'];
    const floor = /^\^(\d+\.\d+\.\d+)$/.exec(range)?.[1];
    assert.ok(floor, `expected a caret range, got ${range}`);
    assert.ok(atLeast(floor, [1, 99, 0]), `floor ${floor} allows a web3.js that cannot decode v1`);
    const installed: string = createRequire(import.meta.url)('@solana/web3.js/package.json').version;
    assert.ok(atLeast(installed, [1, 99, 0]), `installed ${installed}`);
  });

  it('the installed copy decodes a v1 transfer served by an RPC node', async () => {
    const rpc = await startFakeSolanaRpc();
    try {
      const to = newKey();
      const sig = rpc.add(solTransfer({ from: newKey(), to, lamports: 1_500_000, version: 1 }));
      const conn = new Connection(rpc.url, { commitment: 'finalized', disableRetryOnRateLimit: true });
      const tx = await conn.getParsedTransaction(sig, { maxSupportedTransactionVersion: MAX_TRANSACTION_VERSION, commitment: 'finalized' });
      assert.equal(tx?.version, 1);
      const ix = tx!.transaction.message.instructions[0] as { parsed?: { info?: { destination?: string; lamports?: number } } };
      assert.equal(ix.parsed?.info?.destination, to);
      assert.equal(ix.parsed?.info?.lamports, 1_500_000);
    } finally {
      await rpc.close();
    }
  });
});
