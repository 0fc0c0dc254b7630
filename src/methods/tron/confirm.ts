/**
 * A second endpoint's word on the transfers one endpoint listed, before any of them moves money.
 * For one batch of rows, each other endpoint is asked once: its listing of the same account
 * between the batch's first and last block times (TronGrid's min_timestamp/max_timestamp), every
 * page of it. A transaction it lists with the same rows is confirmed; one it does not list is not
 * known there yet (the row waits: the sweep lists it again within its overlap, the re-scan after);
 * one it lists with other rows (another amount, sender, time) is contradicted and never settles.
 */
import type { Confirmation, UpstreamPool, Verdict } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import type { RowDecision } from './netting.ts';
import { parseTrc20Page, type PageFilter, type Trc20Item } from './trc20-page.ts';
import type { TronEndpoint } from './tuning.ts';

export interface ConfirmDeps {
  pool: UpstreamPool<TronEndpoint>;
  filter: PageFilter;
  pageLimit: number;
  maxPages: number;
  /** One listing page on `m`, paced and recorded in its health as every request is. */
  page(m: Member<TronEndpoint>, signal: AbortSignal, q: { minTimestamp: number; maxTimestamp: number; fingerprint?: string }): Promise<unknown>;
}

/** What a transaction's rows say, independent of the listing's order. */
function shape(items: Trc20Item[]): string {
  return items
    .map((i) => (i.kind === 'transfer' ? `in:${i.from}:${i.value}:${i.blockTimestamp}` : i.kind === 'outgoing' ? `out:${i.to}:${i.value}:${i.blockTimestamp}` : `invalid:${i.reason}:${i.blockTimestamp}`))
    .sort()
    .join('|');
}

const byTxid = (items: Trc20Item[]): Map<string, Trc20Item[]> => {
  const out = new Map<string, Trc20Item[]>();
  for (const i of items) out.set(i.txid, [...(out.get(i.txid) ?? []), i]);
  return out;
};

export function createTronConfirmer(deps: ConfirmDeps) {
  /** Every row `m` lists between `from` and `to` (ms, inclusive), grouped by transaction. */
  async function window(m: Member<TronEndpoint>, from: number, to: number, signal: AbortSignal): Promise<Map<string, Trc20Item[]>> {
    const items: Trc20Item[] = [];
    let fingerprint: string | undefined;
    for (let pages = 0; pages < deps.maxPages; pages++) {
      const page = parseTrc20Page(await deps.page(m, signal, { minTimestamp: from, maxTimestamp: to, ...(fingerprint ? { fingerprint } : {}) }), deps.filter);
      items.push(...page.items);
      if (page.fingerprint === undefined || page.fingerprint === fingerprint) return byTxid(items);
      fingerprint = page.fingerprint;
    }
    // A window longer than a tick may list: what it did not reach is simply not known there yet.
    return byTxid(items);
  }

  /**
   * Each credit's confirmation (by transaction id), `served`: the endpoint that listed `rows`;
   * `items`: every row it listed with them (outgoing rows included: they net a credit).
   */
  async function confirmRows(rows: RowDecision[], items: Trc20Item[], served: Member<TronEndpoint>, signal: AbortSignal): Promise<Map<string, Confirmation>> {
    const out = new Map<string, Confirmation>();
    const credits = rows.filter((r) => r.kind === 'credit');
    if (credits.length === 0) return out;
    if (deps.pool.quorum <= 1) {
      for (const r of credits) out.set(r.item.txid, 'confirmed');
      return out;
    }
    const from = Math.min(...credits.map((r) => r.item.blockTimestamp));
    const to = Math.max(...credits.map((r) => r.item.blockTimestamp));
    const mine = byTxid(items);
    const seen = new Map<Member<TronEndpoint>, Promise<Map<string, Trc20Item[]>>>();
    const listed = (m: Member<TronEndpoint>) => {
      let w = seen.get(m);
      if (!w) seen.set(m, (w = window(m, from, to, signal)));
      return w;
    };
    for (const r of credits) {
      const txid = r.item.txid;
      if (out.has(txid)) continue;
      const ours = shape(mine.get(txid) ?? [r.item]);
      out.set(
        txid,
        await deps.pool.confirm(served, async (m): Promise<Verdict> => {
          const theirs = (await listed(m)).get(txid);
          return theirs === undefined ? 'unknown' : shape(theirs) === ours ? 'same' : 'differs';
        }),
      );
    }
    return out;
  }

  return { confirmRows };
}
