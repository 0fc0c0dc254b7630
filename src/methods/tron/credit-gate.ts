/**
 * Which credits of a batch may move money now: those the pool's quorum of endpoints list alike
 * (confirm.ts). One the endpoints contradict never settles; one no second endpoint lists yet
 * waits, logged, and once it has waited past the bound (unconfirmed.ts) it is recorded as
 * rejected for the operator.
 */
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import type { UpstreamPool } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import { createTronConfirmer } from './confirm.ts';
import type { RowDecision } from './netting.ts';
import type { TronRequests } from './requests.ts';
import type { PageFilter, Trc20Item } from './trc20-page.ts';
import type { PollerTuning, TronEndpoint } from './tuning.ts';
import { createUnconfirmedWatch } from './unconfirmed.ts';

export interface CreditGateDeps {
  /** The method the token feeds. */
  method: string;
  pool: UpstreamPool<TronEndpoint>;
  requests: TronRequests;
  filter: PageFilter;
  tuning: PollerTuning;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
}

export function createCreditGate(deps: CreditGateDeps) {
  const confirmer = createTronConfirmer({
    pool: deps.pool,
    filter: deps.filter,
    pageLimit: deps.tuning.pageLimit,
    maxPages: deps.tuning.maxPagesPerTick,
    page: deps.requests.listPage,
  });

  const unconfirmed = createUnconfirmedWatch({ boundMs: deps.tuning.unconfirmedMs, clock: deps.clock });

  /**
   * The credits of `decided` that may move money now: confirmed by the quorum; the others wait,
   * logged, and one that has waited past the bound is recorded as rejected for the operator.
   */
  async function confirmed(decided: RowDecision[], items: Trc20Item[], m: Member<TronEndpoint>, signal: AbortSignal): Promise<(r: RowDecision) => boolean> {
    const verdicts = await confirmer.confirmRows(decided, items, m, signal);
    for (const [txid, verdict] of verdicts) {
      if (verdict !== 'unknown') unconfirmed.settled(txid);
      if (verdict === 'contradicted') deps.log.error('TronGrid endpoints disagree about a transfer; not settled', { txid, endpoint: m.label });
      else if (verdict === 'unknown' && unconfirmed.overdue(txid)) await rejectUnconfirmed(decided, txid, m);
      else if (verdict === 'unknown') deps.log.info('TronGrid transfer waits for a second endpoint to list it', { txid, endpoint: m.label });
    }
    return (r) => r.kind !== 'credit' || verdicts.get(r.item.txid) === 'confirmed';
  }

  /** Records each credit row of `txid`, which only `m` lists, as rejected: the wait is over, the operator is told. */
  async function rejectUnconfirmed(decided: RowDecision[], txid: string, m: Member<TronEndpoint>): Promise<void> {
    const minutes = deps.tuning.unconfirmedMs / 60_000;
    const why = `listed by ${m.label} only: no second endpoint listed it within ${minutes} minutes (a provider that has not indexed it, or one that serves a transfer the chain does not have); it moved no money`;
    deps.log.error('TronGrid transfer not confirmed by a second endpoint in time; recorded as rejected', { txid, endpoint: m.label, waited_minutes: minutes });
    for (const r of decided) {
      if (r.kind !== 'credit' || r.item.txid !== txid) continue;
      await deps.ledger.reject({
        source: 'trongrid',
        method: deps.method,
        ref: `trongrid:${r.row}`,
        reason: 'unconfirmed_transfer',
        detail: { txid, row: r.row, from: r.item.from, amount_minor: r.amountMinor.toString(), block_timestamp: r.item.blockTimestamp, endpoint: m.label, why },
        observedAt: deps.clock.now(),
      });
    }
  }

  return { confirmed };
}
