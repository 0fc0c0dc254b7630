/**
 * The TronGrid checkpoint, pure. `watermark` is the newest block time (ms) up to
 * which every listed transfer has been handled; listings restart at
 * `watermark - overlapMs` so transfers that TronGrid confirms or indexes late are
 * still seen, and `seen` holds the rows (see rowKeys in adapt.ts) inside that overlap
 * so they are handled once. Cursors written before rows were told apart hold bare
 * transaction ids there; those still count as seen.
 */
export interface TronCursor {
  v: 1;
  watermark: number;
  /** transaction id -> block timestamp, ms; only ids at or after watermark - overlap. */
  seen: Record<string, number>;
}

/** First start: look back `lookbackMs` from now rather than from the account's beginning. */
export const startCursor = (now: number, lookbackMs: number): TronCursor => ({
  v: 1,
  watermark: Math.max(0, now - lookbackMs),
  seen: {},
});

/** The stored value, if it is a cursor this version wrote. */
export function readCursor(raw: unknown): TronCursor | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const c = raw as Partial<TronCursor>;
  if (c.v !== 1 || typeof c.watermark !== 'number' || !Number.isFinite(c.watermark)) return undefined;
  if (typeof c.seen !== 'object' || c.seen === null || Array.isArray(c.seen)) return undefined;
  const seen: Record<string, number> = {};
  for (const [id, ts] of Object.entries(c.seen)) if (typeof ts === 'number') seen[id] = ts;
  return { v: 1, watermark: c.watermark, seen };
}

/** `min_timestamp` for the next listing. */
export const listFrom = (c: TronCursor, overlapMs: number): number => Math.max(0, c.watermark - overlapMs);

export const isSeen = (c: TronCursor, txid: string): boolean => Object.hasOwn(c.seen, txid);

/**
 * The cursor after handling one transfer. `advance` is false when the listing
 * is not in ascending time order: then older unlisted transfers may still follow,
 * and only the id is remembered until the listing completes.
 */
export function markSeen(c: TronCursor, txid: string, blockTimestamp: number, overlapMs: number, advance: boolean, cap = Infinity): TronCursor {
  const watermark = advance ? Math.max(c.watermark, Math.min(blockTimestamp, cap)) : c.watermark;
  return prune({ v: 1, watermark, seen: { ...c.seen, [txid]: blockTimestamp } }, overlapMs);
}

/**
 * After a complete listing everything up to its newest item has been handled. `cap`: the
 * solidified head's time on the endpoint that served the listing; the watermark never passes
 * it, so rows that endpoint showed early (a node ahead of its own head) are listed again.
 */
export function completeListing(c: TronCursor, newestListed: number | undefined, overlapMs: number, cap = Infinity): TronCursor {
  const to = newestListed === undefined ? undefined : Math.min(newestListed, cap);
  if (to === undefined || to <= c.watermark) return c;
  return prune({ ...c, watermark: to }, overlapMs);
}

/** Ids before the overlap window will never be listed again. */
function prune(c: TronCursor, overlapMs: number): TronCursor {
  const from = listFrom(c, overlapMs);
  const seen: Record<string, number> = {};
  for (const [id, ts] of Object.entries(c.seen)) if (ts >= from) seen[id] = ts;
  return { v: 1, watermark: c.watermark, seen };
}
