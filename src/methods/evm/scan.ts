/**
 * One chain's scan: every poll reads the endpoints' final blocks (final-heads.ts), then the serving
 * endpoint lists the blocks from the checkpoint up to the final block they agree on (ranges.ts) and
 * hands each Transfer to the ledger once the other endpoints hold it alike (transfers.ts). It reads
 * only up to the chain's final block, so a block a reorganisation replaces is never read. The
 * checkpoint (checkpoint.ts) is saved with each ingested payment, so a restart backfills from it,
 * and a payment read twice is recorded once (its reference is unique per method).
 *
 * No endpoint moves money on its own word where the pool's quorum is two or more: an endpoint that
 * reports a Transfer another endpoint contradicts fails its poll, so another endpoint reads the range.
 */
import { createHeadWatch } from '../../domain/head-watch.ts';
import { describeError } from '../../domain/errors.ts';
import { AllEndpointsFailed } from '../upstream-pool.ts';
import { checkpointKey } from './checkpoint.ts';
import { createFinalHeads, type FinalHead } from './final-heads.ts';
import { createRangeScan } from './ranges.ts';
import type { ScanOptions } from './scan-options.ts';
import { createTransferIngest, EndpointsDisagree } from './transfers.ts';

export type TickResult = { caughtUpAsOf?: number; more: boolean };

export function createChainScan(options: ScanOptions) {
  const key = checkpointKey(options.chainId);
  const heads = createHeadWatch();
  const finals = createFinalHeads(options);
  const ranges = createRangeScan(options, createTransferIngest(options, finals));
  let lastScanAt: number | undefined;

  async function isIdle(): Promise<boolean> {
    for (const w of options.watches) if (await options.ledger.hasOpenIntents(w.method, w.receiver)) return false;
    return true;
  }

  /** Whether the last poll waited for enough endpoints to name a final block (logged once per spell). */
  let waitingForHeads = false;

  /**
   * One poll. Idle (no open intent, no reserved amount on any watched currency) makes no request
   * at all: nothing could settle, and a backlog is read when an intent opens.
   */
  async function tick(signal: AbortSignal): Promise<TickResult> {
    const now = options.clock.now();
    if (await isIdle()) return { caughtUpAsOf: now, more: false };
    finals.newPoll();
    if (options.pool.members.length > 1) {
      await finals.readFinals(signal);
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
        const own = await finals.finalOf(m, signal);
        // Never past what the endpoints agree on, whatever the serving one calls final.
        const agreed = options.pool.agreedHead()?.head;
        if (agreed === undefined && !options.pool.believed(m)) throw new Error(`endpoint ${m.label}: final block ${own.number} not believed (${m.health.suspect})`);
        const head: FinalHead = agreed !== undefined && BigInt(agreed) < own.number ? { number: BigInt(agreed) } : own;
        heads.observe(Number(head.number), now);
        const progress = await ranges.scanTo(m, head, signal);
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

  return { tick, key, finalHead: finals.finalHead, lastScanAt: () => lastScanAt };
}
