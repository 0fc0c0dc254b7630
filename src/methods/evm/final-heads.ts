/**
 * The final block each endpoint of a chain names: `finalized`, or its newest block minus a depth,
 * asked only once the endpoint has shown it serves the configured chain and tokens. Each poll
 * reads every ready endpoint's final block side by side, judged against the others' by the pool,
 * and keeps each read for the poll (an endpoint asked to confirm a log is judged by it).
 */
import { sleep } from '../../runtime/sleep.ts';
import type { Member } from '../upstream-health.ts';
import { callRpc, classify, type EvmEndpoint, type RpcBlock } from './rpc.ts';
import type { ScanOptions } from './scan-options.ts';

export interface FinalHead {
  number: bigint;
  hash?: string;
  /** The block's time (ms), when the node returned the block. */
  time?: number;
}

/** The selector of ERC-20 `decimals()`. */
const DECIMALS_CALL = '0x313ce567';

/** The configured token is not what the chain holds at that address: the operator must fix the config. */
export class TokenMismatch extends Error {
  override name = 'TokenMismatch';
  readonly needsOperator = true;
}

export function createFinalHeads(options: ScanOptions) {
  const verifiedChain = new Set<Member<EvmEndpoint>>();
  /** Each other endpoint's final block, read once per poll when it is asked to confirm a log. */
  let finals = new Map<Member<EvmEndpoint>, Promise<FinalHead>>();
  /** Endpoints whose final block was last not believed (logged once per spell). */
  const doubted = new Set<Member<EvmEndpoint>>();

  /** An endpoint on another network would report another chain's payments: refused before its first read. */
  async function verifyChain(m: Member<EvmEndpoint>, signal: AbortSignal): Promise<void> {
    if (verifiedChain.has(m)) return;
    const id = Number(BigInt(await callRpc<string>(m, signal, 'eth_chainId', [])));
    if (id !== options.chainId) throw new Error(`endpoint ${m.label} serves chain ${id}, not ${options.chainId}`);
    // Amounts are read in the configured decimals: a contract that says otherwise would misprice every payment.
    for (const w of options.watches) {
      const got = await callRpc<string>(m, signal, 'eth_call', [{ to: w.contract, data: DECIMALS_CALL }, 'latest']);
      if (!/^0x[0-9a-f]+$/i.test(got) || BigInt(got) !== BigInt(w.decimals)) throw new TokenMismatch(`${w.method}: contract ${w.contract} on chain ${options.chainId} reports ${/^0x[0-9a-f]+$/i.test(got) ? String(BigInt(got)) : 'no'} decimals, the config says ${w.decimals}`);
    }
    verifiedChain.add(m);
  }

  /** The endpoint's final block: `finalized`, or the newest minus the depth. One call when the tag resolves. */
  async function finalHead(m: Member<EvmEndpoint>, signal: AbortSignal): Promise<FinalHead> {
    await verifyChain(m, signal);
    if (options.confirmationBlocks === undefined) {
      let block: RpcBlock | null = null;
      try {
        block = await callRpc<RpcBlock | null>(m, signal, 'eth_getBlockByNumber', ['finalized', false]);
      } catch (err) {
        // Nodes that cannot resolve the tag answer with an error (-39001, -32000) or null: fall back to depth.
        if (signal.aborted) throw err;
      }
      if (block) return { number: BigInt(block.number), hash: block.hash.toLowerCase(), time: Number(BigInt(block.timestamp)) * 1000 };
    }
    const latest = BigInt(await callRpc<string>(m, signal, 'eth_blockNumber', []));
    const depth = BigInt(options.confirmationBlocks ?? options.fallbackDepth);
    return { number: latest - depth < 0n ? -1n : latest - depth };
  }

  /** `m`'s final block, asked now and judged against the others' (a head far ahead, or dated past the wall clock, is not believed). */
  async function readFinal(m: Member<EvmEndpoint>, signal: AbortSignal): Promise<FinalHead> {
    const head = await options.pool.attempt(m, signal, () => finalHead(m, signal), classify);
    options.pool.observeHead(m, Number(head.number), head.time);
    if (!options.pool.believed(m)) {
      if (!doubted.has(m)) options.log.warn('EVM endpoint final block not believed; it serves last and counts for nothing', { endpoint: m.label, block: String(head.number), why: m.health.suspect });
      doubted.add(m);
    } else doubted.delete(m);
    return head;
  }

  /**
   * Every ready endpoint's final block, side by side, waiting at most `headWaitMs`: one endpoint's
   * word cannot set how far the scan reads. Each read also serves as that endpoint's final block
   * when it is asked to confirm a log this poll.
   */
  async function readFinals(signal: AbortSignal): Promise<void> {
    const reads = options.pool.ready().map((m) => {
      const read = readFinal(m, signal);
      finals.set(m, read);
      return read.catch(() => finals.delete(m));
    });
    const done = new AbortController();
    await Promise.race([Promise.all(reads), sleep(options.headWaitMs ?? 2000, AbortSignal.any([signal, done.signal]))]);
    done.abort(); // the wait's timer goes with it
  }

  /** `m`'s final block this poll: the one read already, else read now. */
  function finalOf(m: Member<EvmEndpoint>, signal: AbortSignal): Promise<FinalHead> {
    let read = finals.get(m);
    if (!read) finals.set(m, (read = readFinal(m, signal)));
    return read;
  }

  /** A new poll reads every final block afresh. */
  function newPoll(): void {
    finals = new Map();
  }

  return { finalHead, readFinals, finalOf, newPoll };
}

export type FinalHeads = ReturnType<typeof createFinalHeads>;
