// The small base58 helpers stand in for tronweb and @solana/web3.js on the config and
// create paths; the libraries themselves are the reference they must agree with.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { PublicKey } from '@solana/web3.js';
import { TronWeb } from 'tronweb';
import { isSolanaAddress, isTronAddress } from '../../../src/config/addresses.ts';
import { base58Decode, base58Encode, tronAddressFromHex } from '../../../src/domain/base58.ts';

test('base58 of 32 bytes is what @solana/web3.js prints, and decodes back (leading zero bytes included)', () => {
  const samples = [new Uint8Array(32), Uint8Array.from([0, 0, 1, ...randomBytes(29)]), ...Array.from({ length: 200 }, () => randomBytes(32))];
  for (const bytes of samples) {
    const text = base58Encode(bytes);
    assert.equal(text, new PublicKey(bytes).toBase58());
    assert.deepEqual(Buffer.from(base58Decode(text)!), Buffer.from(bytes));
    assert.equal(isSolanaAddress(text), true);
  }
});

test('TRON addresses from hex match tronweb, and only checksummed 0x41 addresses validate', () => {
  for (let i = 0; i < 200; i++) {
    const hex = '41' + randomBytes(20).toString('hex');
    const addr = tronAddressFromHex(hex);
    assert.equal(addr, TronWeb.address.fromHex(hex));
    assert.equal(isTronAddress(addr), true);
    // One changed character breaks the checksum: both agree it is not an address.
    const j = 5 + (i % 25);
    const other = addr[j] === 'A' ? 'B' : 'A';
    const broken = addr.slice(0, j) + other + addr.slice(j + 1);
    assert.equal(isTronAddress(broken), TronWeb.isAddress(broken), broken);
    assert.equal(isTronAddress(broken), false);
  }
  assert.equal(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'), true); // USDT's contract, from Tronscan
});

test('not a key: wrong length, characters outside the alphabet, non-canonical text', () => {
  assert.equal(isSolanaAddress('0OIl' + '1'.repeat(40)), false);
  assert.equal(isSolanaAddress(base58Encode(randomBytes(31))), false);
  assert.equal(isSolanaAddress(base58Encode(randomBytes(33))), false);
  assert.equal(base58Decode('abc0'), undefined);
  assert.equal(isTronAddress('T' + '1'.repeat(33)), false);
});

test("the TRON source's address reader agrees with tronweb on base58, hex and broken input", async () => {
  const { toBase58 } = await import('../../../src/methods/tron/address.ts');
  for (let i = 0; i < 100; i++) {
    const hex = '41' + randomBytes(20).toString('hex');
    const b58 = TronWeb.address.fromHex(hex);
    assert.equal(toBase58(hex), b58);
    assert.equal(toBase58(`0x${hex.toUpperCase()}`), b58);
    assert.equal(toBase58(b58), b58);
    const broken = b58.slice(0, 10) + (b58[10] === 'A' ? 'B' : 'A') + b58.slice(11);
    assert.equal(toBase58(broken), undefined);
  }
  for (const bad of [undefined, 42, '', 'T123', '42' + '0'.repeat(40), '41' + '0'.repeat(39)]) assert.equal(toBase58(bad), undefined);
});
