import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PublicKey } from '@solana/web3.js';
import { associatedTokenAddress } from '../../../../src/methods/solana/accounts.ts';
import { adaptTransaction } from '../../../../src/methods/solana/adapt.ts';
import { referenceCandidates, solCredit, tokenCredit, type TxView } from '../../../../src/methods/solana/validate.ts';
import { newKey, solTransfer, SYSTEM_PROGRAM, TOKEN_PROGRAM, tokenTransfer, USDC_MINT, USDT_MINT, type BuiltTx } from '../../../fakes/solana-tx.ts';

/** The raw JSON as the RPC returns it (keys as strings), in a slot. */
const view = (tx: BuiltTx, slot = 7): TxView => ({ ...tx, slot }) as unknown as TxView;

const wallet = newKey();
const payer = newKey();
const ata = associatedTokenAddress(wallet, USDT_MINT);
const usdt = { wallet, ata, mint: USDT_MINT, decimals: 6 };

describe('SOL credit', () => {
  it('is the lamports the wallet gained', () => {
    assert.equal(solCredit(view(solTransfer({ from: payer, to: wallet, lamports: 1_500_001_000n })), wallet), 1_500_001_000n);
  });
  it('is nothing when the wallet is the one paying', () => {
    assert.equal(solCredit(view(solTransfer({ from: wallet, to: payer, lamports: 5_000n })), wallet), 0n);
  });
  it('is nothing for a failed transaction, whatever its balances', () => {
    const tx = solTransfer({ from: payer, to: wallet, lamports: 1_000n, err: { InstructionError: [0, { Custom: 1 }] } });
    tx.meta.postBalances[1] += 1_000; // even if a node reported a balance change
    assert.equal(solCredit(view(tx), wallet), 0n);
  });
  it('is nothing when the wallet is not in the transaction', () => {
    assert.equal(solCredit(view(solTransfer({ from: payer, to: newKey(), lamports: 1_000n })), wallet), 0n);
  });
});

describe('USDT credit', () => {
  it('is the raw 6-decimal amount a transferChecked put in the wallet ATA', () => {
    assert.equal(tokenCredit(view(tokenTransfer({ payer, wallet, amount: 25_010_000n, destinationBefore: 3_000_000n })), usdt), 25_010_000n);
  });
  it('counts in full when the ATA is created in the same transaction (no pre balance)', () => {
    const tx = tokenTransfer({ payer, wallet, amount: 10_000_000n, createAta: true });
    assert.equal(tx.meta.preTokenBalances.some((b) => b.accountIndex === 2), false);
    assert.equal(tokenCredit(view(tx), usdt), 10_000_000n);
  });
  it('never counts another mint with the same amount', () => {
    assert.equal(tokenCredit(view(tokenTransfer({ payer, wallet, amount: 10_000_000n, mint: USDC_MINT })), usdt), 0n);
  });
  it('never counts a token account of the wallet that is not its ATA', () => {
    assert.equal(tokenCredit(view(tokenTransfer({ payer, wallet, amount: 10_000_000n, destination: newKey() })), usdt), 0n);
  });
  it('never counts a failed transfer', () => {
    assert.equal(tokenCredit(view(tokenTransfer({ payer, wallet, amount: 10_000_000n, err: { InstructionError: [0, 'InsufficientFunds'] } })), usdt), 0n);
  });
  it('never counts a mint whose decimals differ from the method minor unit', () => {
    assert.equal(tokenCredit(view(tokenTransfer({ payer, wallet, amount: 10_000_000n, decimals: 9 })), usdt), 0n);
  });
});

describe('reference candidates', () => {
  it('include the read-only non-signer reference and leave out signers, writable accounts and programs', () => {
    const reference = newKey();
    const refs = referenceCandidates(view(solTransfer({ from: payer, to: wallet, lamports: 1n, reference })));
    assert.deepEqual(refs, [reference]);
    assert.ok(!refs.includes(SYSTEM_PROGRAM) && !refs.includes(payer) && !refs.includes(wallet));
  });
  it('come from a v0 lookup table too', () => {
    const reference = newKey();
    const tx = solTransfer({ from: payer, to: wallet, lamports: 1n, reference, version: 0, referenceFromLookupTable: true });
    assert.equal(tx.transaction.message.accountKeys.at(-1)?.source, 'lookupTable');
    assert.deepEqual(referenceCandidates(view(tx)), [reference]);
  });
  it('keep every candidate of a token transfer (the core picks)', () => {
    const reference = newKey();
    const refs = referenceCandidates(view(tokenTransfer({ payer, wallet, amount: 1n, reference })));
    assert.ok(refs.includes(reference));
    assert.ok(!refs.includes(TOKEN_PROGRAM));
  });
});

describe('adaptTransaction', () => {
  it('turns a SOL payment into a ReceivedPayment with block time and evidence', () => {
    const reference = newKey();
    const tx = solTransfer({ from: payer, to: wallet, lamports: 2_000_000n, reference, blockTime: 1_790_000_000 });
    const r = adaptTransaction(view(tx, 321), tx.signature, { kind: 'native', method: 'SOL', decimals: 9, wallet, account: wallet }, 1_790_000_009_000);
    assert.equal(r.kind, 'payment');
    if (r.kind !== 'payment') return;
    assert.deepEqual(r.payment, {
      method: 'SOL',
      receiver: wallet,
      amountMinor: 2_000_000n,
      txRef: tx.signature,
      references: [reference],
      occurredAt: 1_790_000_000_000,
      observedAt: 1_790_000_009_000,
      source: 'solana',
      evidence: { slot: 321, blockTime: 1_790_000_000, payer },
    });
  });
  it('says why a transaction is not a payment', () => {
    const failed = solTransfer({ from: payer, to: wallet, lamports: 1n, err: { InstructionError: [0, { Custom: 1 }] } });
    assert.deepEqual(adaptTransaction(view(failed), failed.signature, { kind: 'native', method: 'SOL', decimals: 9, wallet, account: wallet }, 0), { kind: 'skip', reason: 'failed' });
    const other = tokenTransfer({ payer, wallet, amount: 1n, mint: USDC_MINT });
    assert.deepEqual(adaptTransaction(view(other), other.signature, { kind: 'spl', method: 'USDT_SOL', decimals: 6, wallet, account: ata, mint: USDT_MINT }, 0), { kind: 'skip', reason: 'no_credit' });
  });
});

describe('associatedTokenAddress', () => {
  it('matches the addresses other Solana SDKs derive (published test vectors)', () => {
    // Solana.Swift AssociatedTokenProgramTests and solders test_ata use these pairs.
    assert.equal(associatedTokenAddress('3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG', USDC_MINT), '3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3');
    assert.equal(
      associatedTokenAddress('5d21Nx19eZBThbExCn1ESAk3RGmE8Rdp9PKMWZ2VedSK', '3CqfBkrmRsK3uXZaxktvTeeBkJp4yeFKs4mUi2jhKExz'),
      'Aumq2SPVzZccYL3UAhvXoDDkNYLZr2zpyxLuJiyx79te',
    );
  });
  it('is the off-curve program address of [wallet, token program, mint], distinct per mint', () => {
    const a = associatedTokenAddress(wallet, USDT_MINT);
    assert.equal(a, associatedTokenAddress(wallet, USDT_MINT));
    assert.notEqual(a, associatedTokenAddress(wallet, USDC_MINT));
    assert.equal(PublicKey.isOnCurve(new PublicKey(a).toBytes()), false);
  });
});
