/**
 * The one paging loop of a TronGrid listing, shared by the sweep and the deep re-scan:
 * `min_timestamp` fixed, `fingerprint` followed (one endpoint's fingerprints mean nothing
 * to another, so a listing stays on the endpoint that began it), at most `maxPages` pages,
 * and the rows of the last block held back until the next page shows the rest of them.
 */
import type { Logger } from '../../domain/ports.ts';
import { TronGridError } from './client.ts';
import { holdBack } from './netting.ts';
import { parseTrc20Page, type PageFilter, type Trc20Item } from './trc20-page.ts';

export interface WalkOptions {
  fetchPage(minTimestamp: number, fingerprint: string | undefined): Promise<unknown>;
  filter: PageFilter;
  minTimestamp: number;
  /** Where a cut-short listing resumes (same endpoint only), and the rows it held. */
  fingerprint?: string;
  held?: Trc20Item[];
  maxPages: number;
  pageLimit: number;
  signal: AbortSignal;
  log: Logger;
  /**
   * Whether the rows of the last block may be held for the next page; `last`: this tick lists no
   * more. The sweep lets them go when holding would leave a tick with nothing done (progress first).
   */
  mayHold(last: boolean): boolean;
  /** Rows to decide now, in listing order. */
  onBatch(items: Trc20Item[]): Promise<void>;
  /** After each page with more to come: where to resume, and what is held. */
  onPage?(fingerprint: string, held: Trc20Item[]): Promise<void>;
}

/** Walks the listing; `complete` when its last page was reached (nothing is held then). */
export async function walkPages(options: WalkOptions): Promise<{ complete: boolean; pages: number }> {
  let fingerprint = options.fingerprint;
  let held = options.held ?? [];
  let pages = 0;
  let last: boolean;
  do {
    const page = parseTrc20Page(await options.fetchPage(options.minTimestamp, fingerprint), options.filter);
    pages += 1;
    if (page.malformed > 0) options.log.warn('TronGrid items without id or timestamp skipped', { count: page.malformed });
    if (page.fingerprint !== undefined && page.fingerprint === fingerprint) throw new TronGridError('TronGrid repeated a page fingerprint', 200);
    fingerprint = page.fingerprint;
    last = fingerprint === undefined || pages >= options.maxPages || options.signal.aborted;
    const all = held.length ? [...held, ...page.items] : page.items;
    const keep = fingerprint !== undefined && options.mayHold(last) ? holdBack(all, 4 * options.pageLimit) : [];
    held = keep;
    await options.onBatch(keep.length ? all.slice(0, all.length - keep.length) : all);
    if (fingerprint !== undefined) await options.onPage?.(fingerprint, held);
  } while (!last);
  return { complete: fingerprint === undefined, pages };
}
