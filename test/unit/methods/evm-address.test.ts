import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressTopic, checksumAddress, isEvmAddress, topicAddress } from '../../../src/methods/evm/address.ts';

test('EVM addresses: any single case is accepted, mixed case only with a correct EIP-55 checksum', () => {
  // The EIP-55 specification's own examples.
  for (const a of ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb']) {
    assert.equal(isEvmAddress(a), true, a);
    assert.equal(checksumAddress(a.toLowerCase()), a);
  }
  assert.equal(isEvmAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'), true);
  assert.equal(isEvmAddress('0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED'), true);
  // One letter's case flipped: a typo the checksum catches.
  assert.equal(isEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'), false);
  assert.equal(isEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA'), false);
  assert.equal(isEvmAddress('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), false);
  assert.equal(isEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg'), false);
});

test('an address in a log topic and back', () => {
  const a = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
  assert.equal(addressTopic(a), '0x00000000000000000000000090f79bf6eb2c4f870365e785982e1f101e93b906');
  assert.equal(topicAddress(addressTopic(a)), a.toLowerCase());
});
