/**
 * What each row of a TronGrid listing is worth to us, pure. Decided per transaction id:
 * - a row from our own address (`transferFrom(merchant, merchant, v)` by anyone holding an
 *   allowance on it) moves no money: rejected `self_transfer`;
 * - rows from our address to others in the same transaction are netted against its incoming
 *   rows (a contract that sends V in and takes V out credits nothing): only the net credit
 *   counts; an incoming row netted to nothing is rejected `netted_by_outgoing`.
 * A transaction's rows must therefore be decided together: `holdBack` keeps the rows of the
 * last block of a page until the next page shows whether more of them follow.
 */
import type { Trc20Invalid, Trc20Item, Trc20Transfer } from './trc20-page.ts';

export type RowDecision =
  | { kind: 'credit'; item: Trc20Transfer; row: string; amountMinor: bigint; nettedMinor: bigint }
  | { kind: 'reject'; item: Trc20Transfer | Trc20Invalid; row: string; reason: string; detail: Record<string, unknown> };

/**
 * Decisions for the incoming rows of `items` (outgoing rows only net), in listing order.
 * `rows` names each incoming row (rowKeys in adapt.ts); it is called in listing order.
 */
export function decideRows(items: Trc20Item[], receiver: string, rows: (item: Trc20Item) => string): RowDecision[] {
  const groups = new Map<string, Trc20Item[]>();
  for (const item of items) {
    const g = groups.get(item.txid);
    if (g) g.push(item);
    else groups.set(item.txid, [item]);
  }
  const named = new Map<Trc20Item, string>();
  for (const item of items) if (item.kind !== 'outgoing') named.set(item, rows(item));

  const taken = new Map<Trc20Item, bigint>();
  const outOf = new Map<string, bigint>();
  for (const [txid, group] of groups) {
    let out = 0n;
    for (const item of group) if (item.kind === 'outgoing') out += item.value;
    outOf.set(txid, out);
    // The outflow is taken from the smallest credits first (a stable order, whatever the
    // listing's), so the rows it leaves whole keep their exact amounts.
    const credits = group
      .filter((i): i is Trc20Transfer => i.kind === 'transfer' && i.from !== receiver)
      .sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : named.get(a)! < named.get(b)! ? -1 : 1));
    let left = out;
    for (const c of credits) {
      const take = left < c.value ? left : c.value;
      taken.set(c, take);
      left -= take;
    }
  }

  const decisions: RowDecision[] = [];
  for (const item of items) {
    if (item.kind === 'outgoing') continue;
    const row = named.get(item)!;
    if (item.kind === 'invalid') {
      decisions.push({ kind: 'reject', item, row, reason: item.reason, detail: item.detail });
    } else if (item.from === receiver) {
      decisions.push({ kind: 'reject', item, row, reason: 'self_transfer', detail: { from: item.from, to: receiver, value: item.value.toString() } });
    } else {
      const netted = taken.get(item) ?? 0n;
      if (netted === item.value) {
        decisions.push({ kind: 'reject', item, row, reason: 'netted_by_outgoing', detail: { from: item.from, value: item.value.toString(), transaction_outgoing_minor: outOf.get(item.txid)!.toString() } });
      } else {
        decisions.push({ kind: 'credit', item, row, amountMinor: item.value - netted, nettedMinor: netted });
      }
    }
  }
  return decisions;
}

/**
 * The rows a page ends with that may belong to a transaction continued on the next page: every
 * row with the last row's block time (one transaction's rows share it and are listed together).
 * More than `max` of them are decided as they come: progress before netting, in a case
 * (hundreds of our rows in one block) no listing has shown.
 */
export function holdBack(items: Trc20Item[], max: number): Trc20Item[] {
  if (items.length === 0) return [];
  const last = items[items.length - 1]!.blockTimestamp;
  let i = items.length;
  while (i > 0 && items[i - 1]!.blockTimestamp === last) i -= 1;
  return items.length - i > max ? [] : items.slice(i);
}

/** Held rows as JSON (the re-scan checkpoint), and back; anything unreadable is dropped. */
export function heldToJson(items: Trc20Item[]): unknown[] {
  return items.map((i) => ('value' in i ? { ...i, value: i.value.toString() } : i));
}

export function heldFromJson(raw: unknown): Trc20Item[] {
  if (!Array.isArray(raw)) return [];
  const out: Trc20Item[] = [];
  for (const r of raw as Record<string, unknown>[]) {
    if (typeof r !== 'object' || r === null || typeof r.txid !== 'string' || typeof r.blockTimestamp !== 'number') continue;
    if (r.kind === 'invalid' && typeof r.reason === 'string') out.push(r as unknown as Trc20Invalid);
    else if ((r.kind === 'transfer' || r.kind === 'outgoing') && typeof r.value === 'string' && /^\d{1,78}$/.test(r.value)) out.push({ ...r, value: BigInt(r.value) } as unknown as Trc20Item);
  }
  return out;
}
