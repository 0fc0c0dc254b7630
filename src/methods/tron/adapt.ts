/** The TRON adapter: a listed TRC20 row, named and turned into a ReceivedPayment. */
import type { ReceivedPayment } from '../../domain/payment.ts';
import type { Trc20Item, Trc20Transfer } from './trc20-page.ts';

/**
 * Names each Transfer row of one listing. TronGrid gives no event index, and several
 * rows may share a transaction id (batch payouts, multisend contracts), so a row is
 * named by what it says: transaction id, sender, value, and for identical rows of one
 * transaction their count so far. That name does not depend on the listing's order
 * and stays the same when the row is listed again, in any later listing, by any endpoint.
 */
export function rowKeys(): (item: Trc20Item) => string {
  const counts = new Map<string, number>();
  return (item) => {
    const base = item.kind === 'invalid' ? `${item.txid}:${String(item.detail.from)}:${String(item.detail.value)}` : `${item.txid}:${item.kind === 'transfer' ? item.from : item.to}:${item.value}`;
    const k = counts.get(base) ?? 0;
    counts.set(base, k + 1);
    return k === 0 ? base : `${base}:${k + 1}`;
  };
}

export function toPayment(method: string, t: Trc20Transfer, row: string, receiver: string, contract: string, observedAt: number, net?: { amountMinor: bigint; nettedMinor: bigint }): ReceivedPayment {
  const evidence: Record<string, unknown> = { from: t.from, to: receiver, block_timestamp: t.blockTimestamp, contract, value: t.value.toString() };
  if (t.symbol !== undefined) evidence.symbol = t.symbol;
  // Part of the row went back out in the same transaction (netting.ts): only the rest is paid.
  if (net && net.nettedMinor > 0n) evidence.netted_by_outgoing_minor = net.nettedMinor.toString();
  return {
    method,
    receiver,
    amountMinor: net ? net.amountMinor : t.value,
    // Each row is its own payment; the merchant still sees the TRON transaction id.
    txRef: row,
    txHash: t.txid,
    occurredAt: t.blockTimestamp,
    observedAt,
    source: 'trongrid',
    evidence,
  };
}
