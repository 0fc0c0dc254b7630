/**
 * A chain's blocks from the checkpoint up to a final block, one `eth_getLogs` per range covering
 * every watched token contract (an address array) and every receiving address (the recipient
 * topic), never a topic-only filter. A provider that refuses a range gets fewer blocks from then
 * on. A range the serving endpoint lists nothing new in is listed on a second endpoint before the
 * checkpoint passes it, so one endpoint leaving a payment out cannot hide it. A checkpoint block
 * no longer canonical makes the scan read the last blocks again.
 */
import { describeError } from '../../domain/errors.ts';
import type { Member } from '../upstream-health.ts';
import { addressTopic } from './address.ts';
import { checkpointKey, readCheckpoint, type EvmCheckpoint } from './checkpoint.ts';
import type { FinalHead } from './final-heads.ts';
import { attemptRpc, rangeRefusal, type EvmEndpoint, type RpcBlock, type RpcLog } from './rpc.ts';
import type { ScanOptions } from './scan-options.ts';
import { TRANSFER_TOPIC, type TransferIngest } from './transfers.ts';

export function createRangeScan(options: ScanOptions, transfers: TransferIngest) {
  const key = checkpointKey(options.chainId);
  const contracts = [...new Set(options.watches.map((w) => w.contract))];
  const recipients = [...new Set(options.watches.map((w) => addressTopic(w.recipient)))];
  /** Blocks one getLogs may span, per endpoint: a refusal narrows it for good (a provider's limit does not change by itself). */
  const spans = new Map<Member<EvmEndpoint>, bigint>();
  /** getLogs parameters for blocks from..to: the watched contracts' Transfers to the watched addresses. */
  const transfersIn = (from: bigint, to: bigint) => [{ fromBlock: hex(from), toBlock: hex(to), address: contracts, topics: [TRANSFER_TOPIC, null, recipients] }];

  /**
   * From the checkpoint up to `head`: `more` when a backlog remains for the next tick, `wait` when
   * a log waits for a second endpoint (the checkpoint stays before it).
   */
  async function scanTo(m: Member<EvmEndpoint>, head: FinalHead, signal: AbortSignal): Promise<'done' | 'more' | 'wait'> {
    let cp = readCheckpoint(await options.ledger.loadCheckpoint(key));
    if (!cp) {
      const start = head.number - BigInt(options.backfillBlocks);
      cp = { v: 1, block: String(start < -1n ? -1n : start) };
      await options.ledger.saveCheckpoint({ key, value: cp });
      options.log.info('EVM scan starts', { chain_id: options.chainId, from_block: String(BigInt(cp.block) + 1n) });
    } else if (cp.hash !== undefined && BigInt(cp.block) <= head.number) {
      const block = await attemptRpc(options.pool, m, signal, 'eth_getBlockByNumber', [hex(BigInt(cp.block)), false]);
      const at = block as RpcBlock | null;
      if (at && at.hash.toLowerCase() !== cp.hash) {
        // A final block replaced: never expected; read the last blocks again (their payments are recorded once).
        const back = BigInt(cp.block) - BigInt(options.fallbackDepth);
        options.log.error('EVM checkpoint block is no longer canonical; reading again from an earlier block', { chain_id: options.chainId, block: cp.block, from_block: String(back + 1n) });
        cp = { v: 1, block: String(back < -1n ? -1n : back) };
      }
    }
    let done = BigInt(cp.block);
    let calls = 0;
    while (done < head.number) {
      if (signal.aborted || calls >= options.maxRangesPerTick) return 'more';
      const from = done + 1n;
      let span = spans.get(m) ?? BigInt(Math.min(options.logRange, options.maxBlockRange ?? Infinity));
      let to = from + span - 1n > head.number ? head.number : from + span - 1n;
      calls += 1;
      let logs: RpcLog[];
      try {
        logs = (await attemptRpc(options.pool, m, signal, 'eth_getLogs', transfersIn(from, to))) as RpcLog[];
      } catch (err) {
        const refusal = rangeRefusal(err);
        if (!refusal || to === from) throw err;
        span = narrower(span, to - from + 1n, refusal);
        spans.set(m, span);
        options.log.info('EVM provider refused a getLogs range; asking for fewer blocks', { endpoint: m.label, blocks: String(to - from + 1n), now_blocks: String(span), error: describeError(err) });
        continue;
      }
      const read = await transfers.ingestRange(m, logs, from, to, signal);
      if (read !== 'new') {
        if (read !== undefined) return read;
        // Nothing new from the serving endpoint: a second one lists the same blocks before the
        // checkpoint passes them, so one endpoint leaving a payment out cannot hide it.
        const ready = options.pool.quorum >= 2 ? options.pool.ready() : undefined;
        const second = ready && options.pool.order().find((x) => x !== m && ready.includes(x) && options.pool.believed(x));
        // Where endpoints must agree and no second one can list the range now, it stays before the
        // checkpoint (nothing could settle meanwhile: no second endpoint would confirm it either).
        if (options.pool.quorum >= 2 && !second) return 'wait';
        if (second) {
          let theirs: RpcLog[];
          try {
            theirs = (await attemptRpc(options.pool, second, signal, 'eth_getLogs', transfersIn(from, to))) as RpcLog[];
          } catch (err) {
            if (signal.aborted) throw err;
            const refusal = rangeRefusal(err);
            if (refusal && to > from) {
              // The second provider takes fewer blocks: the serving one lists ranges both take from now on.
              spans.set(m, narrower(span, to - from + 1n, refusal));
              options.log.info('EVM second endpoint refused the range; asking both for fewer blocks', { endpoint: second.label, blocks: String(to - from + 1n), error: describeError(err) });
              continue;
            }
            options.log.warn('EVM second endpoint failed to list the range; the checkpoint waits for it', { endpoint: second.label, from_block: String(from), to_block: String(to), error: describeError(err) });
            return 'wait';
          }
          const again = await transfers.ingestRange(second, theirs, from, to, signal);
          if (again === 'wait' || again === 'more') return again;
          if (again === 'new') options.log.warn('EVM second endpoint listed a transfer the serving endpoint left out', { endpoint: m.label, second: second.label, from_block: String(from), to_block: String(to) });
        }
      }
      done = to;
      const value: EvmCheckpoint = { v: 1, block: String(to), ...(to === head.number && head.hash ? { hash: head.hash } : {}) };
      await options.ledger.saveCheckpoint({ key, value });
    }
    return 'done';
  }

  return { scanTo };
}

const hex = (n: bigint): string => `0x${n.toString(16)}`;

/** The next span after a refusal of `asked` blocks: the provider's suggestion, its stated cap, else half. */
function narrower(span: bigint, asked: bigint, r: NonNullable<ReturnType<typeof rangeRefusal>>): bigint {
  let next = asked / 2n;
  if (r.suggested && r.suggested.to >= r.suggested.from) next = r.suggested.to - r.suggested.from + 1n;
  else if (r.cap !== undefined && r.cap > 0n) next = r.cap;
  if (next >= asked) next = asked / 2n;
  if (next > span) next = span;
  return next < 1n ? 1n : next;
}
