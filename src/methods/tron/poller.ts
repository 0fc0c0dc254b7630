/**
 * One polling cycle of the TRON source: the solidified head of every endpoint (heads.ts), then at
 * most one TronGrid listing (plus its pages) for the receiving address, on the healthiest endpoint,
 * whatever the number of open intents; another endpoint takes over within the cycle when it fails.
 *
 * Endpoints may disagree (one trails another, one has not indexed a row yet, one lies). Nothing
 * depends on which one served: the cursor holds block times and row names, never an endpoint's
 * fingerprint; a row listed by two endpoints has one name (adapt.ts) and the ledger records it
 * once; the watermark never passes the agreed head's block time nor the wall clock (rows past it
 * are listed again later; sweep.ts); a credit moves money only once the pool's quorum of endpoints
 * list it alike (credit-gate.ts); a sweep that hands nothing new is followed by one on a second
 * endpoint; the re-scan runs on another endpoint than the sweep's; and the lag counts from when
 * the newest believable head was first seen.
 */
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import { cycleReporterOf } from '../../runtime/cycle.ts';
import { describeError } from '../../domain/errors.ts';
import { AllEndpointsFailed, type UpstreamPool } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import { createCreditGate } from './credit-gate.ts';
import { createRowHandler } from './handle.ts';
import { createTronHeads } from './heads.ts';
import { createTronRequests } from './requests.ts';
import { createRescan } from './rescan.ts';
import { createSweep } from './sweep.ts';
import type { PageFilter } from './trc20-page.ts';
import type { TronAsset } from './tokens.ts';
import type { PollerTuning, TronEndpoint } from './tuning.ts';

export interface PollerDeps {
  /** The method this token feeds, and its decimals. */
  asset: TronAsset;
  address: string;
  contract: string;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  pool: UpstreamPool<TronEndpoint>;
  tuning: PollerTuning;
}

export function createTronPoller(deps: PollerDeps) {
  const key = `trongrid:${deps.asset.method}:${deps.address}:${deps.contract}`;
  const filter: PageFilter = { receiver: deps.address, contract: deps.contract, decimals: deps.asset.decimals };
  const requests = createTronRequests({ pool: deps.pool, clock: deps.clock, address: deps.address, contract: deps.contract, pageLimit: deps.tuning.pageLimit });
  const heads = createTronHeads({ pool: deps.pool, requests, clock: deps.clock, log: deps.log, headWaitMs: deps.tuning.headWaitMs });
  const handle = createRowHandler({ method: deps.asset.method, address: deps.address, contract: deps.contract, ledger: deps.ledger, clock: deps.clock, log: deps.log });
  const { confirmed } = createCreditGate({ method: deps.asset.method, pool: deps.pool, requests, filter, tuning: deps.tuning, ledger: deps.ledger, clock: deps.clock, log: deps.log });

  const fetchPage = (m: Member<TronEndpoint>, signal: AbortSignal) => (minTimestamp: number, fingerprint: string | undefined) =>
    requests.listPage(m, signal, { minTimestamp, fingerprint });

  const sweep = createSweep({
    key,
    address: deps.address,
    ledger: deps.ledger,
    clock: deps.clock,
    log: deps.log,
    pool: deps.pool,
    tuning: deps.tuning,
    filter,
    walk: fetchPage,
    confirmed,
    handle,
  });

  const rescan = createRescan({
    key: `${key}:rescan`,
    ledger: deps.ledger,
    clock: deps.clock,
    log: deps.log,
    tuning: deps.tuning,
    filter,
    walk: fetchPage,
    confirmed,
    handle: async (r) => {
      const outcome = await handle(r, undefined);
      return outcome !== undefined && outcome.kind !== 'duplicate';
    },
    address: deps.address,
  });

  /**
   * The endpoints to list on, in turn: those whose head answered this cycle and is believed (at the
   * newest head before trailing, then by health), then the others (a resting, slow or suspect one
   * only when nothing else serves).
   */
  function candidates(answered: Map<Member<TronEndpoint>, unknown>): Member<TronEndpoint>[] {
    const order = deps.pool.order();
    return [...order.filter((m) => answered.has(m)), ...order.filter((m) => !answered.has(m))];
  }

  /** One cycle. Throws on upstream faults (of every endpoint) so the loop backs off. */
  async function tick(signal: AbortSignal): Promise<void> {
    const open = await deps.ledger.hasOpenIntents(deps.asset.method, deps.address);
    const report = cycleReporterOf(signal);
    const caughtUpAt = sweep.caughtUpAt(); // as the tick begins; a sweep below may move it
    if (open || caughtUpAt === undefined || deps.clock.now() - caughtUpAt >= deps.tuning.idleSweepMs) {
      const got = await heads.readHeads(signal);
      const errors: { label: string; error: unknown }[] = [];
      let served: Member<TronEndpoint> | undefined;
      let fresh = 0;
      const order = candidates(got);
      for (const m of order) {
        const head = got.get(m);
        try {
          const swept = await sweep.run(m, signal);
          if (swept.complete) {
            const asOf = head ? heads.asOf(head.number) : undefined;
            if (asOf !== undefined) report?.caughtUp?.(asOf);
          }
          served = m;
          fresh = swept.fresh;
          break;
        } catch (err) {
          if (signal.aborted) throw err;
          errors.push({ label: m.label, error: err });
          if (deps.pool.members.length > 1) deps.log.warn('TronGrid endpoint failed; trying the next', { endpoint: m.label, error: describeError(err) });
        }
      }
      if (!served) throw errors.length === 1 ? errors[0]!.error : new AllEndpointsFailed('TronGrid', errors);
      const ready = deps.pool.ready();
      const others = order.filter((m) => m !== served && ready.includes(m) && deps.pool.believed(m));
      // Nothing new on the first endpoint: a second may show what it does not (it lags, or withholds).
      if (fresh === 0 && others[0]) {
        try {
          await sweep.run(others[0], signal);
        } catch (err) {
          if (signal.aborted) throw err;
          deps.log.warn('TronGrid second endpoint failed', { endpoint: others[0].label, error: describeError(err) });
        }
      }
      // Only once caught up, so the start-up catch-up is not delayed by a second listing. On another
      // endpoint than the sweep's: what one endpoint withholds, another shows.
      if (sweep.caughtUpAt() !== undefined) await rescan.run(others[0] ?? served, signal);
      return;
    }
    // Nothing could settle and the backlog is swept: save the calls. An intent created now is
    // listed on the next tick, so nothing waits behind the head meanwhile.
    report?.caughtUp?.(deps.clock.now());
    if (sweep.caughtUpAt() !== undefined) {
      const m = deps.pool.order()[0];
      if (m) await rescan.run(m, signal);
    }
  }

  return { key, tick };
}
