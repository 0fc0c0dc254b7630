import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideRows, heldFromJson, heldToJson, holdBack } from '../../../../src/methods/tron/netting.ts';
import { rowKeys } from '../../../../src/methods/tron/adapt.ts';
import type { Trc20Item } from '../../../../src/methods/tron/trc20-page.ts';

const US = 'TJmmqjb1DK9TTZbQXzRQ2AuA94z4gKAPFh';
const A = 'TLCuBEirVzB6V4menLZKw1jfBTFMZbuKq7';
const B = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
const tx = (n: number) => String(n).padStart(64, '0');
const inRow = (t: number, from: string, value: bigint, ts = 1000): Trc20Item => ({ kind: 'transfer', txid: tx(t), blockTimestamp: ts, from, value });
const outRow = (t: number, to: string, value: bigint, ts = 1000): Trc20Item => ({ kind: 'outgoing', txid: tx(t), blockTimestamp: ts, to, value });
const decide = (items: Trc20Item[]) => decideRows(items, US, rowKeys()).map((d) => (d.kind === 'credit' ? `${d.row} credit ${d.amountMinor}` : `${d.row} ${d.reason}`));

test('a row from our own address is self_transfer; an outgoing row nets the same transaction only, smallest credits first', () => {
  assert.deepEqual(decide([inRow(1, US, 100n), inRow(2, A, 50n), outRow(2, B, 50n), inRow(3, A, 10n), inRow(3, B, 20n), outRow(3, B, 15n), inRow(4, A, 7n), outRow(5, B, 9n)]), [
    `${tx(1)}:${US}:100 self_transfer`,
    `${tx(2)}:${A}:50 netted_by_outgoing`,
    `${tx(3)}:${A}:10 netted_by_outgoing`,
    `${tx(3)}:${B}:20 credit 15`,
    `${tx(4)}:${A}:7 credit 7`,
  ]);
});

test('the decision does not depend on the order rows are listed in', () => {
  const rows = [inRow(3, A, 10n), inRow(3, B, 20n), outRow(3, B, 15n)];
  assert.deepEqual(decide(rows).sort(), decide([...rows].reverse()).sort());
});

test('the rows of the last block are held for the next page (bounded), and survive a checkpoint', () => {
  const items = [inRow(1, A, 1n, 10), inRow(2, A, 2n, 20), outRow(2, B, 1n, 20)];
  assert.deepEqual(holdBack(items, 5), items.slice(1));
  assert.deepEqual(holdBack(items, 1), [], 'beyond the bound: decided as they come');
  assert.deepEqual(holdBack([], 5), []);
  assert.deepEqual(heldFromJson(JSON.parse(JSON.stringify(heldToJson(items)))), items);
  assert.deepEqual(heldFromJson([{ kind: 'transfer', txid: 'x', blockTimestamp: 1, value: '1.5' }, null, 'junk']), []);
});
