/** One TRC20 Transfer row → one ReceivedPayment. Pure. */
import type { ReceivedPayment } from '../../domain/payment.ts';
import type { Trc20Transfer } from './trc20-page.ts';

/** `row`: the row's own name (poller.ts rowKeys), its txRef; `net`: what is left after outgoing netting (netting.ts). */
export function toPayment(t: Trc20Transfer, row: string, receiver: string, contract: string, observedAt: number, net?: { amountMinor: bigint; nettedMinor: bigint }): ReceivedPayment {
  const evidence: Record<string, unknown> = { from: t.from, to: receiver, block_timestamp: t.blockTimestamp, contract, value: t.value.toString() };
  if (t.symbol !== undefined) evidence.symbol = t.symbol;
  // Part of the row went back out in the same transaction (netting.ts): only the rest is paid.
  if (net && net.nettedMinor > 0n) evidence.netted_by_outgoing_minor = net.nettedMinor.toString();
  return {
    method: 'USDT_TRC20',
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
