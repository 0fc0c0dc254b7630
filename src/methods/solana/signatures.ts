/** Listing an account's signatures newer than a checkpoint, page by page (newest first, as the RPC answers). */
import { PublicKey, type ConfirmedSignatureInfo, type Connection, type Finality } from '@solana/web3.js';

export interface Checkpoint {
  /** Last signature processed for this account (oldest-first order). */
  signature: string;
  slot: number;
  /**
   * A backlog too long to list in one cycle (a dust-spammed wallet after an outage) is
   * worked through newest first across cycles: everything from `before` up to `top` is
   * done, everything between `signature` and `before` is not yet. When the walk reaches
   * `signature`, `top` becomes the checkpoint.
   */
  backlog?: { top: { signature: string; slot: number }; before: string };
}

export interface ListOptions {
  commitment: Finality;
  /** Page size, 1..1000 (the RPC's maximum). */
  limit: number;
  /** Guard against walking a whole history (e.g. a checkpoint the node no longer knows). */
  maxPages: number;
}

/**
 * Signatures after `since` (and older than `before`, when given), newest first, at most
 * `maxPages` pages. `complete` says whether the walk reached `since`; if not, the
 * caller works through what it got and continues from its oldest entry next time.
 * One request per page, whatever the number of intents.
 */
export async function listSince(
  conn: Connection,
  account: string,
  since: Checkpoint,
  options: ListOptions & { before?: string },
): Promise<{ list: ConfirmedSignatureInfo[]; complete: boolean }> {
  const address = new PublicKey(account);
  const list: ConfirmedSignatureInfo[] = [];
  let before = options.before;
  for (let page = 0; page < options.maxPages; page++) {
    const batch = await conn.getSignaturesForAddress(address, { until: since.signature, limit: options.limit, ...(before ? { before } : {}) }, options.commitment);
    // `until` should stop the walk; slots older than the checkpoint stop it too, should the node not know that signature.
    const newer = batch.filter((s) => s.slot >= since.slot);
    list.push(...newer);
    if (batch.length < options.limit || newer.length < batch.length) return { list, complete: true };
    before = batch[batch.length - 1].signature;
  }
  return { list, complete: false };
}

/** First start: only the newest page, and only what happened within the lookback window. */
export async function listRecent(conn: Connection, account: string, options: ListOptions & { notBeforeMs: number }): Promise<{ all: ConfirmedSignatureInfo[]; recent: ConfirmedSignatureInfo[] }> {
  const all = await conn.getSignaturesForAddress(new PublicKey(account), { limit: options.limit }, options.commitment);
  // blockTime may be unknown to the node; such an entry is kept rather than silently dropped.
  const recent = all.filter((s) => s.blockTime == null || s.blockTime * 1000 >= options.notBeforeMs);
  return { all, recent };
}
