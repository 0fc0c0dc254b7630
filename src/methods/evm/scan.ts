/**
 * One chain's scan: every poll, one `eth_getLogs` per block range covers every watched token
 * contract (an address array) and every receiving address (the recipient topic), never a
 * topic-only filter. It reads only up to the chain's final block, so a block a reorganisation
 * replaces is never read; a `removed` log and a transaction whose receipt failed or whose block
 * is not the log's are never payments. The checkpoint (`evm:<chainId>`: the last block worked
 * through and its hash) is saved with each ingested payment, so a restart backfills from it,
 * and a payment read twice is recorded once (its reference is unique per method).
 *
 * No endpoint moves money on its own word where the pool's quorum is two or more: before a
 * Transfer is recorded, other endpoints must hold the same log (transaction, log index, token,
 * recipient, value, block) in a successful receipt, in a block each of them calls final. One that
 * does not yet makes the scan stop before that log (read again next poll); one that holds
 * something else contradicts it: the log is never recorded and the serving endpoint's poll fails,
 * so another endpoint reads the range.
 */
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { createHeadWatch } from '../../domain/head-watch.ts';
import { describeError } from '../../domain/errors.ts';
import { formatMinor } from '../../domain/money.ts';
import { sleep } from '../../runtime/sleep.ts';
import { AllEndpointsFailed, type UpstreamPool, type Verdict } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import { addressTopic, topicAddress } from './address.ts';
import { classify, rangeRefusal, type EvmEndpoint } from './rpc.ts';

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** One currency the scan reads: Transfers of `contract` to `recipient` (both lower case). */
export interface Watch {
  method: string;
  contract: string;
  recipient: string;
  /** The receiver as intents carry it (EIP-55). */
  receiver: string;
  decimals: number;
}

export interface ScanOptions {
  chainId: number;
  watches: Watch[];
  pool: UpstreamPool<EvmEndpoint>;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  /** Depth rule instead of the `finalized` tag (config `confirmations.blocks`). */
  confirmationBlocks?: number;
  /** Blocks under the newest when a node cannot resolve `finalized`. */
  fallbackDepth: number;
  /** Blocks per getLogs at first (the chain's default or the configured cap). */
  logRange: number;
  /** A configured cap no range ever exceeds. */
  maxBlockRange?: number;
  /** First start: scan this many blocks under the final one. */
  backfillBlocks: number;
  /** getLogs calls one tick makes at most before it yields (a backlog continues on the next tick). */
  maxRangesPerTick: number;
  /** How long a poll waits for the endpoints' final blocks before it goes on with those it has, ms. Default 2 s. */
  headWaitMs?: number;
}

/** The stored checkpoint: every block up to `block` is worked through; `hash` is that block's, when known. */
export interface EvmCheckpoint {
  v: 1;
  block: string;
  hash?: string;
}

export interface FinalHead {
  number: bigint;
  hash?: string;
  /** The block's time (ms), when the node returned the block. */
  time?: number;
}

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

interface RpcReceipt {
  status: string;
  blockHash: string;
  blockNumber: string;
  logs: RpcLog[];
}

interface RpcBlock {
  number: string;
  hash: string;
  timestamp: string;
}

/** The selector of ERC-20 `decimals()`. */
const DECIMALS_CALL = '0x313ce567';

/** The configured token is not what the chain holds at that address: the operator must fix the config. */
export class TokenMismatch extends Error {
  override name = 'TokenMismatch';
  readonly needsOperator = true;
}

/** Another endpoint holds something else where the serving one reported a Transfer: that endpoint's poll fails, another reads the range. */
export class EndpointsDisagree extends Error {
  override name = 'EndpointsDisagree';
}

export const checkpointKey = (chainId: number): string => `evm:${chainId}`;

export function readCheckpoint(raw: unknown): EvmCheckpoint | undefined {
  const c = raw as Partial<EvmCheckpoint> | undefined;
  // -1: nothing worked through yet (a first start on a chain younger than its backfill or finality depth).
  if (!c || c.v !== 1 || typeof c.block !== 'string' || !/^(-1|\d+)$/.test(c.block)) return undefined;
  return { v: 1, block: c.block, ...(typeof c.hash === 'string' ? { hash: c.hash } : {}) };
}

export type TickResult = { caughtUpAsOf?: number; more: boolean };

export function createChainScan(options: ScanOptions) {
  const key = checkpointKey(options.chainId);
  const heads = createHeadWatch();
  const byPair = new Map(options.watches.map((w) => [`${w.contract}>${w.recipient}`, w]));
  const contracts = [...new Set(options.watches.map((w) => w.contract))];
  const recipients = [...new Set(options.watches.map((w) => addressTopic(w.recipient)))];
  /** Blocks one getLogs may span, per endpoint: a refusal narrows it for good (a provider's limit does not change by itself). */
  const spans = new Map<Member<EvmEndpoint>, bigint>();
  const verifiedChain = new Set<Member<EvmEndpoint>>();
  let lastScanAt: number | undefined;
  /** Each other endpoint's final block, read once per poll when it is asked to confirm a log. */
  let finals = new Map<Member<EvmEndpoint>, Promise<FinalHead>>();

  const call = <T>(m: Member<EvmEndpoint>, signal: AbortSignal, method: string, params: unknown[]): Promise<T> => m.spec.rpc!<T>(method, params, signal);

  /** An endpoint on another network would report another chain's payments: refused before its first read. */
  async function verifyChain(m: Member<EvmEndpoint>, signal: AbortSignal): Promise<void> {
    if (verifiedChain.has(m)) return;
    const id = Number(BigInt(await call<string>(m, signal, 'eth_chainId', [])));
    if (id !== options.chainId) throw new Error(`endpoint ${m.label} serves chain ${id}, not ${options.chainId}`);
    // Amounts are read in the configured decimals: a contract that says otherwise would misprice every payment.
    for (const w of options.watches) {
      const got = await call<string>(m, signal, 'eth_call', [{ to: w.contract, data: DECIMALS_CALL }, 'latest']);
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
        block = await call<RpcBlock | null>(m, signal, 'eth_getBlockByNumber', ['finalized', false]);
      } catch (err) {
        // Nodes that cannot resolve the tag answer with an error (-39001, -32000) or null: fall back to depth.
        if (signal.aborted) throw err;
      }
      if (block) return { number: BigInt(block.number), hash: block.hash.toLowerCase(), time: Number(BigInt(block.timestamp)) * 1000 };
    }
    const latest = BigInt(await call<string>(m, signal, 'eth_blockNumber', []));
    const depth = BigInt(options.confirmationBlocks ?? options.fallbackDepth);
    return { number: latest - depth < 0n ? -1n : latest - depth };
  }

  async function isIdle(): Promise<boolean> {
    for (const w of options.watches) if (await options.ledger.hasOpenIntents(w.method, w.receiver)) return false;
    return true;
  }

  /** Whether the last poll waited for enough endpoints to name a final block (logged once per spell). */
  let waitingForHeads = false;
  /** Endpoints whose final block was last not believed (logged once per spell). */
  const doubted = new Set<Member<EvmEndpoint>>();

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

  /**
   * One poll. Idle (no open intent, no reserved amount on any watched currency) makes no request
   * at all: nothing could settle, and a backlog is read when an intent opens.
   */
  async function tick(signal: AbortSignal): Promise<TickResult> {
    const now = options.clock.now();
    if (await isIdle()) return { caughtUpAsOf: now, more: false };
    finals = new Map();
    if (options.pool.members.length > 1) {
      await readFinals(signal);
      // Where endpoints must agree, nothing is read before as many have named a final block: the
      // one that answers first (the others down or slow) would otherwise set where a first scan begins.
      if (options.pool.members.filter((x) => x.health.head !== undefined).length < options.pool.quorum) {
        if (!waitingForHeads) options.log.info('EVM scan waits for a second endpoint to name its final block', { chain_id: options.chainId });
        waitingForHeads = true;
        return { more: false };
      }
      waitingForHeads = false;
    }
    const errors: { label: string; error: unknown }[] = [];
    for (const m of options.pool.order()) {
      if (signal.aborted) break;
      try {
        let read = finals.get(m);
        if (!read) finals.set(m, (read = readFinal(m, signal)));
        const own = await read;
        // Never past what the endpoints agree on, whatever the serving one calls final.
        const agreed = options.pool.agreedHead()?.head;
        if (agreed === undefined && !options.pool.believed(m)) throw new Error(`endpoint ${m.label}: final block ${own.number} not believed (${m.health.suspect})`);
        const head: FinalHead = agreed !== undefined && BigInt(agreed) < own.number ? { number: BigInt(agreed) } : own;
        heads.observe(Number(head.number), now);
        const progress = await scanTo(m, head, signal);
        lastScanAt = now;
        // Waiting on a second endpoint is not caught up: the lag grows until it confirms.
        return { more: progress === 'more', ...(progress === 'done' ? { caughtUpAsOf: heads.asOf(Number(head.number)) ?? now } : {}) };
      } catch (err) {
        if (signal.aborted) throw err;
        // It answered, but with something another endpoint contradicts: it rests like a failing one, and the next serves.
        if (err instanceof EndpointsDisagree) options.pool.failed(m, { kind: 'error' }, err);
        errors.push({ label: m.label, error: err });
        if (options.pool.members.length > 1) options.log.warn('EVM endpoint failed; trying the next', { endpoint: m.label, error: describeError(err) });
      }
    }
    throw errors.length === 1 ? errors[0]!.error : new AllEndpointsFailed(`EVM chain ${options.chainId}`, errors);
  }

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
      const block = await attempt(m, signal, 'eth_getBlockByNumber', [hex(BigInt(cp.block)), false]);
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
        logs = (await attempt(m, signal, 'eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: contracts, topics: [TRANSFER_TOPIC, null, recipients] }])) as RpcLog[];
      } catch (err) {
        const refusal = rangeRefusal(err);
        if (!refusal || to === from) throw err;
        span = narrower(span, to - from + 1n, refusal);
        spans.set(m, span);
        options.log.info('EVM provider refused a getLogs range; asking for fewer blocks', { endpoint: m.label, blocks: String(to - from + 1n), now_blocks: String(span), error: describeError(err) });
        continue;
      }
      const read = await ingestRange(m, logs, from, to, signal);
      if (read !== 'new') {
        if (read !== undefined) return read;
        // Nothing new from the serving endpoint: a second one lists the same blocks before the
        // checkpoint passes them, so one endpoint leaving a payment out cannot hide it.
        const second = options.pool.quorum >= 2 ? options.pool.order().find((x) => x !== m && options.pool.ready().includes(x) && options.pool.believed(x)) : undefined;
        // Where endpoints must agree and no second one can list the range now, it stays before the
        // checkpoint (nothing could settle meanwhile: no second endpoint would confirm it either).
        if (options.pool.quorum >= 2 && !second) return 'wait';
        if (second) {
          let theirs: RpcLog[];
          try {
            theirs = (await attempt(second, signal, 'eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: contracts, topics: [TRANSFER_TOPIC, null, recipients] }])) as RpcLog[];
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
          const again = await ingestRange(second, theirs, from, to, signal);
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
    const receipt = (await attempt(other, signal, 'eth_getTransactionReceipt', [log.transactionHash.toLowerCase()])) as RpcReceipt | null;
    if (!receipt) return 'unknown';
    let final = finals.get(other);
    if (!final) finals.set(other, (final = readFinal(other, signal)));
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
    const receipt = (await attempt(m, signal, 'eth_getTransactionReceipt', [txHash])) as RpcReceipt | null;
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
    const block = (await attempt(m, signal, 'eth_getBlockByNumber', [log.blockNumber, false])) as RpcBlock | null;
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

  const attempt = (m: Member<EvmEndpoint>, signal: AbortSignal, method: string, params: unknown[]) => options.pool.attempt(m, signal, () => call<unknown>(m, signal, method, params), classify);

  return { tick, key, finalHead, lastScanAt: () => lastScanAt };
}

const hex = (n: bigint): string => `0x${n.toString(16)}`;

/** The same Transfer: token, sender, recipient and value alike (the caller compares transaction, index and block). */
const sameTransfer = (a: RpcLog, b: RpcLog): boolean =>
  a.address.toLowerCase() === b.address.toLowerCase() &&
  a.topics.length === b.topics.length &&
  a.topics.every((t, i) => t.toLowerCase() === b.topics[i]!.toLowerCase()) &&
  /^0x[0-9a-f]*$/i.test(a.data) &&
  BigInt(a.data === '0x' ? 0 : a.data) === BigInt(b.data === '0x' ? 0 : b.data);
const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** The next span after a refusal of `asked` blocks: the provider's suggestion, its stated cap, else half. */
function narrower(span: bigint, asked: bigint, r: NonNullable<ReturnType<typeof rangeRefusal>>): bigint {
  let next = asked / 2n;
  if (r.suggested && r.suggested.to >= r.suggested.from) next = r.suggested.to - r.suggested.from + 1n;
  else if (r.cap !== undefined && r.cap > 0n) next = r.cap;
  if (next >= asked) next = asked / 2n;
  if (next > span) next = span;
  return next < 1n ? 1n : next;
}
