/**
 * The Transfer logs a range listed, handed to the ledger in chain order: a `removed` log and a
 * transaction whose receipt failed or whose block is not the log's are never payments. Where the
 * pool's quorum is two or more, other endpoints must first hold the same log (transaction, log
 * index, token, recipient, value, block) in a successful receipt, in a block each of them calls
 * final: one that does not yet makes the log wait (read again next poll); one that holds something
 * else contradicts it, and the log is never recorded.
 */
import { formatMinor } from '../../domain/money.ts';
import type { Member } from '../upstream-health.ts';
import type { Verdict } from '../upstream-pool.ts';
import { topicAddress } from './address.ts';
import { checkpointKey, type EvmCheckpoint } from './checkpoint.ts';
import type { FinalHeads } from './final-heads.ts';
import { attemptRpc, type EvmEndpoint, type RpcBlock, type RpcLog, type RpcReceipt } from './rpc.ts';
import type { ScanOptions } from './scan-options.ts';

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** Another endpoint holds something else where the serving one reported a Transfer: that endpoint's poll fails, another reads the range. */
export class EndpointsDisagree extends Error {
  override name = 'EndpointsDisagree';
}

export function createTransferIngest(options: ScanOptions, finals: FinalHeads) {
  const key = checkpointKey(options.chainId);
  const byPair = new Map(options.watches.map((w) => [`${w.contract}>${w.recipient}`, w]));

  /**
   * `logs`, as `m` listed blocks `from`..`to`, handed over in chain order: `new` when one was new
   * to the ledger, `wait` when one waits for a second endpoint, `more` on shutdown.
   */
  async function ingestRange(m: Member<EvmEndpoint>, logs: RpcLog[], from: bigint, to: bigint, signal: AbortSignal): Promise<'new' | 'wait' | 'more' | undefined> {
    const sorted = logs.filter((l) => !l.removed).sort((a, b) => cmp(BigInt(a.blockNumber), BigInt(b.blockNumber)) || cmp(BigInt(a.logIndex), BigInt(b.logIndex)));
    let fresh = false;
    for (const log of sorted) {
      if (signal.aborted) return 'more';
      const n = BigInt(log.blockNumber);
      if (n < from || n > to) continue; // never more than asked: a log above the final block may still be replaced
      const got = await ingest(m, log, signal, { v: 1, block: String(n - 1n) });
      if (got === 'wait') return 'wait';
      if (got === 'new') fresh = true;
    }
    return fresh ? 'new' : undefined;
  }

  /** Whether `other` holds `log` alike: in a successful receipt, in the same block, which `other` calls final. */
  async function askAbout(other: Member<EvmEndpoint>, log: RpcLog, signal: AbortSignal): Promise<Verdict> {
    const receipt = (await attemptRpc(options.pool, other, signal, 'eth_getTransactionReceipt', [log.transactionHash.toLowerCase()])) as RpcReceipt | null;
    if (!receipt) return 'unknown';
    const final = finals.finalOf(other, signal);
    // Not final there yet (a lagging endpoint, or another fork it may still leave): asked again next poll.
    if (BigInt(receipt.blockNumber) > (await final).number) return 'unknown';
    const theirs = receipt.logs?.find((l) => BigInt(l.logIndex) === BigInt(log.logIndex));
    return receipt.status === '0x1' && receipt.blockHash.toLowerCase() === log.blockHash.toLowerCase() && theirs !== undefined && sameTransfer(theirs, log) ? 'same' : 'differs';
  }

  /** `wait` when the log may not move money yet (no second endpoint holds it alike so far); `new` when the ledger had not recorded it. */
  async function ingest(m: Member<EvmEndpoint>, log: RpcLog, signal: AbortSignal, checkpoint: EvmCheckpoint): Promise<'wait' | 'new' | undefined> {
    const contract = log.address.toLowerCase();
    if (log.topics.length !== 3 || log.topics[0]!.toLowerCase() !== TRANSFER_TOPIC) return;
    const w = byPair.get(`${contract}>${topicAddress(log.topics[2]!)}`);
    if (!w) return; // another pair of the filter's product: a token to an address watched only on another token
    const value = BigInt(log.data === '0x' ? 0 : log.data);
    if (value <= 0n) return;
    const txHash = log.transactionHash.toLowerCase();
    const receipt = (await attemptRpc(options.pool, m, signal, 'eth_getTransactionReceipt', [txHash])) as RpcReceipt | null;
    // A failed transaction moves nothing; a receipt in another block means the log's block is not canonical here.
    if (!receipt || receipt.status !== '0x1' || receipt.blockHash.toLowerCase() !== log.blockHash.toLowerCase()) {
      options.log.warn('EVM transfer log without a successful receipt in its block; not a payment', { tx: txHash, status: receipt?.status ?? null });
      return;
    }
    const verdict = await options.pool.confirm(m, (other) => askAbout(other, log, signal));
    if (verdict === 'unknown') {
      options.log.info('EVM transfer waits for a second endpoint to hold it in a final block', { tx: txHash, endpoint: m.label });
      return 'wait';
    }
    if (verdict === 'contradicted') {
      options.log.error('EVM endpoints disagree about a transfer; not settled', { tx: txHash, log_index: String(BigInt(log.logIndex)), endpoint: m.label });
      throw new EndpointsDisagree(`endpoint ${m.label} reported a transfer in ${txHash} that another endpoint contradicts`);
    }
    const block = (await attemptRpc(options.pool, m, signal, 'eth_getBlockByNumber', [log.blockNumber, false])) as RpcBlock | null;
    const occurredAt = block ? Number(BigInt(block.timestamp)) * 1000 : options.clock.now();
    const logIndex = BigInt(log.logIndex);
    const outcome = await options.ledger.ingest(
      {
        method: w.method,
        receiver: w.receiver,
        amountMinor: value,
        txRef: `${txHash}:${logIndex}`,
        txHash,
        occurredAt,
        observedAt: options.clock.now(),
        source: 'evm',
        evidence: { chain_id: options.chainId, block: BigInt(log.blockNumber).toString(), block_hash: log.blockHash.toLowerCase(), log_index: Number(logIndex), contract, from: topicAddress(log.topics[1]!), value: value.toString() },
      },
      { key, value: checkpoint },
    );
    options.log.info('EVM payment ingested', { method: w.method, tx: txHash, amount: formatMinor(value, w.decimals), outcome: outcome.kind });
    return outcome.kind === 'duplicate' ? undefined : 'new';
  }

  return { ingestRange };
}

export type TransferIngest = ReturnType<typeof createTransferIngest>;

/** The same Transfer: token, sender, recipient and value alike (the caller compares transaction, index and block). */
const sameTransfer = (a: RpcLog, b: RpcLog): boolean =>
  a.address.toLowerCase() === b.address.toLowerCase() &&
  a.topics.length === b.topics.length &&
  a.topics.every((t, i) => t.toLowerCase() === b.topics[i]!.toLowerCase()) &&
  /^0x[0-9a-f]*$/i.test(a.data) &&
  BigInt(a.data === '0x' ? 0 : a.data) === BigInt(b.data === '0x' ? 0 : b.data);
const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
