import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTrc20Page, Trc20FormatError, type PageFilter } from '../../../../src/methods/tron/trc20-page.ts';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_HEX = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c';
const ME = 'TJmmqjb1DK9TTZbQXzRQ2AuA94z4gKAPFh';
const ME_HEX = '0x41608f8da72479edc7dd921e4c30bb7e7cddbe722e';
const PAYER = 'TLCuBEirVzB6V4menLZKw1jfBTFMZbuKq7';
const filter: PageFilter = { receiver: ME, contract: USDT, decimals: 6 };
const ID = (n: number) => n.toString(16).padStart(64, '0');

const item = (over: Record<string, unknown> = {}) => ({
  transaction_id: ID(1),
  token_info: { symbol: 'USDT', address: USDT, decimals: 6, name: 'Tether USD' },
  block_timestamp: 1_700_000_000_000,
  from: PAYER,
  to: ME,
  type: 'Transfer',
  value: '12340000',
  ...over,
});
const envelope = (data: unknown[], meta: Record<string, unknown> = { at: 1_700_000_001_000, page_size: data.length }) => ({ data, success: true, meta });

test('a USDT Transfer to us becomes a transfer with an exact bigint amount', () => {
  const page = parseTrc20Page(envelope([item({ value: '123456789012345678901234567890' })]), filter);
  assert.deepEqual(page.items, [
    { kind: 'transfer', txid: ID(1), blockTimestamp: 1_700_000_000_000, from: PAYER, value: 123456789012345678901234567890n, symbol: 'USDT' },
  ]);
  assert.equal(page.at, 1_700_000_001_000);
  assert.equal(page.fingerprint, undefined);
});

test('other tokens, Approvals, transfers to others and zero-value poisoning are ignored', () => {
  const page = parseTrc20Page(
    envelope([
      item({ token_info: { symbol: 'USDC', address: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', decimals: 6 } }),
      item({ type: 'Approval' }),
      item({ to: PAYER }),
      item({ value: '0' }),
    ]),
    filter,
  );
  assert.deepEqual(page.items, []);
  assert.equal(page.ignored, 4);
});

test('a row from us is read as outgoing (to net its transaction), one from us to us as a transfer (rejected later as self_transfer)', () => {
  const page = parseTrc20Page(envelope([item({ from: ME, to: PAYER, value: '5000000' }), item({ from: ME_HEX, to: ME, value: '7' }), item({ from: ME, to: PAYER, value: '0' }), item({ from: ME, to: PAYER, value: '1.5' })]), filter);
  assert.deepEqual(page.items, [
    { kind: 'outgoing', txid: ID(1), blockTimestamp: 1_700_000_000_000, to: PAYER, value: 5_000_000n },
    { kind: 'transfer', txid: ID(1), blockTimestamp: 1_700_000_000_000, from: ME, value: 7n, symbol: 'USDT' },
  ]);
  assert.equal(page.ignored, 1, 'a zero-value outgoing row');
  assert.equal(page.malformed, 1, 'an unreadable outgoing value is never netted as zero');
});

test('hex addresses are read like base58 ones', () => {
  const page = parseTrc20Page(envelope([item({ token_info: { address: USDT_HEX, decimals: 6 }, to: ME_HEX })]), filter);
  assert.equal(page.items.length, 1);
  assert.equal(page.items[0].kind, 'transfer');
  assert.equal(parseTrc20Page(envelope([item({ to: '41608f8da72479edc7dd921e4c30bb7e7cddbe722f' })]), filter).items.length, 0);
});

test('a value that is not a base-unit digit string is kept as invalid, never as an amount', () => {
  for (const value of ['1e6', '-5', '12.5', ' 10', '', 1000000, '0x10']) {
    const page = parseTrc20Page(envelope([item({ value })]), filter);
    assert.equal(page.items.length, 1, `value ${JSON.stringify(value)}`);
    assert.equal(page.items[0].kind, 'invalid', `value ${JSON.stringify(value)}`);
  }
});

test('a token reporting other decimals is not read as USDT amounts', () => {
  const page = parseTrc20Page(envelope([item({ token_info: { address: USDT, decimals: 18 } })]), filter);
  assert.equal(page.items[0].kind, 'invalid');
});

test('items without a usable id or timestamp are counted as malformed', () => {
  const page = parseTrc20Page(envelope([item({ transaction_id: 'abc' }), item({ block_timestamp: '1700000000000' }), null]), filter);
  assert.equal(page.items.length, 0);
  assert.equal(page.malformed, 3);
  assert.equal(page.ignored, 0);
});

test('the paging fingerprint is taken from meta', () => {
  const page = parseTrc20Page(envelope([], { at: 1, page_size: 0, fingerprint: 'abc', links: { next: 'https://x/?fingerprint=abc' } }), filter);
  assert.equal(page.fingerprint, 'abc');
});

test('an envelope that is not TronGrid\'s is an error', () => {
  assert.throws(() => parseTrc20Page({ success: false, error: 'boom' }, filter), Trc20FormatError);
  assert.throws(() => parseTrc20Page({ success: true }, filter), Trc20FormatError);
  assert.throws(() => parseTrc20Page('<html>', filter), Trc20FormatError);
});

test('rows sharing a transaction id get distinct names that do not depend on listing order', async () => {
  const { rowKeys } = await import('../../../../src/methods/tron/adapt.ts');
  const id = 'a'.repeat(64);
  const row = (from: string, value: bigint) => ({ kind: 'transfer' as const, txid: id, blockTimestamp: 1, from, value });
  const names = (rows: ReturnType<typeof row>[]) => {
    const name = rowKeys();
    return rows.map((r) => name(r));
  };
  const [x, y, x2] = [row('TA', 10n), row('TB', 20n), row('TA', 10n)];
  assert.deepEqual(names([x, y, x2]), [`${id}:TA:10`, `${id}:TB:20`, `${id}:TA:10:2`]);
  // Listed in another order (or the middle row back-filled later): the same set of names.
  assert.deepEqual(new Set(names([y, x2, x])), new Set(names([x, y, x2])));
});
