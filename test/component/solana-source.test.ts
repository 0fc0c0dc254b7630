import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { associatedTokenAddress } from '../../src/methods/solana/accounts.ts';
import { start, solConfig, usdtConfig } from '../helpers/solana-harness.ts';
import { FakeLedger, waitFor } from '../helpers/solana-ledger.ts';
import { startFakeSolanaRpc, type FakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { newKey, solTransfer, tokenTransfer, USDC_MINT, USDT_MINT } from '../fakes/solana-tx.ts';

let rpc: FakeSolanaRpc;
before(async () => {
  rpc = await startFakeSolanaRpc();
});
after(async () => {
  await rpc.close();
});

/** The checkpoint reaching `signature` means every transaction up to it was examined. */
const examined = (ledger: FakeLedger, key: string, signature: string) => () => (ledger.checkpoints.get(key) as { signature?: string } | undefined)?.signature === signature;

describe('Solana source: SOL', () => {
  it('ingests a SOL transfer to the wallet with the exact lamports, signature and block time', async () => {
    const wallet = newKey();
    const payer = newKey();
    const blockTime = Math.floor(Date.now() / 1000) - 30;
    const sig = rpc.add(solTransfer({ from: payer, to: wallet, lamports: 1_250_003_000n, blockTime }));
    const run = start('SOL', solConfig(rpc, wallet));
    try {
      await waitFor(() => run.ledger.payments.length === 1, 3000, 'the payment');
      const p = run.ledger.payments[0];
      assert.equal(p.method, 'SOL');
      assert.equal(p.receiver, wallet);
      assert.equal(p.amountMinor, 1_250_003_000n);
      assert.equal(p.txRef, sig);
      assert.equal(p.occurredAt, blockTime * 1000);
      assert.equal(p.source, 'solana');
      assert.equal((p.evidence as { payer: string }).payer, payer);
      await waitFor(examined(run.ledger, `solana:SOL:${wallet}`, sig), 3000, 'the checkpoint');
    } finally {
      await run.stop();
    }
  });

  it('reports every Solana Pay reference and examines every transaction carrying the same one', async () => {
    const wallet = newKey();
    const reference = newKey();
    const ledger = new FakeLedger();
    ledger.intents.push({ id: 'intent-1', method: 'SOL', payMinor: 1_000_000_000n, reference });
    const first = rpc.add(solTransfer({ from: newKey(), to: wallet, lamports: 400_000_000n, reference }));
    const second = rpc.add(solTransfer({ from: newKey(), to: wallet, lamports: 1_000_000_000n, reference }));
    const run = start('SOL', solConfig(rpc, wallet), { ledger });
    try {
      await waitFor(() => ledger.payments.length === 2, 3000, 'both payments');
      assert.deepEqual(ledger.payments.map((p) => p.txRef), [first, second]); // oldest first
      for (const p of ledger.payments) assert.ok(p.references?.includes(reference));
      // The short first payment leaves the intent open; the full second one settles it.
      assert.deepEqual(ledger.outcomes.map((o) => o.kind), ['unmatched', 'settled']);
      assert.equal(ledger.intents[0].settledBy, second);
    } finally {
      await run.stop();
    }
  });

  it('reads a v0 transaction whose reference comes from an address lookup table', async () => {
    const wallet = newKey();
    const reference = newKey();
    const sig = rpc.add(solTransfer({ from: newKey(), to: wallet, lamports: 7_000n, reference, version: 0, referenceFromLookupTable: true }));
    const run = start('SOL', solConfig(rpc, wallet));
    try {
      await waitFor(() => run.ledger.payments.length === 1, 3000, 'the v0 payment');
      assert.equal(run.ledger.payments[0].txRef, sig);
      assert.equal(run.ledger.payments[0].amountMinor, 7_000n);
      assert.deepEqual(run.ledger.payments[0].references, [reference]);
    } finally {
      await run.stop();
    }
  });

  it('never ingests a failed transfer or one the wallet sent', async () => {
    const wallet = newKey();
    rpc.add(solTransfer({ from: newKey(), to: wallet, lamports: 5_000_000n, err: { InstructionError: [0, { Custom: 1 }] } }));
    const outgoing = rpc.add(solTransfer({ from: wallet, to: newKey(), lamports: 5_000_000n }));
    const run = start('SOL', solConfig(rpc, wallet));
    try {
      await waitFor(examined(run.ledger, `solana:SOL:${wallet}`, outgoing), 3000, 'both examined');
      assert.equal(run.ledger.payments.length, 0);
    } finally {
      await run.stop();
    }
  });
});

describe('Solana source: USDT_SOL', () => {
  it('ingests a transferChecked into the wallet ATA in 6-decimal units, and never another mint or a failed transfer', async () => {
    const wallet = newKey();
    const ata = associatedTokenAddress(wallet, USDT_MINT);
    const payer = newKey();
    rpc.add(tokenTransfer({ payer, wallet, amount: 12_340_000n, mint: USDC_MINT })); // same amount, other mint
    rpc.add(tokenTransfer({ payer, wallet, amount: 12_340_000n, err: { InstructionError: [0, 'InsufficientFunds'] } }));
    const good = rpc.add(tokenTransfer({ payer, wallet, amount: 12_340_000n, destinationBefore: 1_000_000n }));
    const run = start('USDT_SOL', usdtConfig(rpc, wallet));
    try {
      await waitFor(examined(run.ledger, `solana:USDT_SOL:${ata}`, good), 3000, 'the transfers examined');
      assert.equal(run.ledger.payments.length, 1);
      const p = run.ledger.payments[0];
      assert.equal(p.method, 'USDT_SOL');
      assert.equal(p.receiver, wallet); // the wallet is the payment_address, not the ATA
      assert.equal(p.txRef, good);
      assert.equal(p.amountMinor, 12_340_000n); // 12.34 USDT
    } finally {
      await run.stop();
    }
  });

  it('counts a payment whose transaction also creates the wallet ATA', async () => {
    const wallet = newKey();
    const reference = newKey();
    const sig = rpc.add(tokenTransfer({ payer: newKey(), wallet, amount: 5_000_000n, createAta: true, reference }));
    const run = start('USDT_SOL', usdtConfig(rpc, wallet));
    try {
      await waitFor(() => run.ledger.payments.length === 1, 3000, 'the payment');
      assert.equal(run.ledger.payments[0].txRef, sig);
      assert.equal(run.ledger.payments[0].amountMinor, 5_000_000n);
      assert.ok(run.ledger.payments[0].references?.includes(reference));
    } finally {
      await run.stop();
    }
  });
});
