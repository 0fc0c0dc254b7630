/** Listing an account's signatures newer than a checkpoint, page by page (newest first, as the RPC answers). */
import { PublicKey, type ConfirmedSignatureInfo, type Connection, type Finality } from '@solana/web3.js';

export interface Checkpoint {
  /** Last signature processed for this account (oldest-first order). */
  signature: string;
  slot: number;
}

export interface ListOptions {
  commitment: Finality;
  /** Page size, 1..1000 (the RPC's maximum). */
  limit: number;
  /** Guard against walking a whole history (e.g. a checkpoint the node no longer knows). */
  maxPages: number;
}

/** Every signature after `since`, newest first. One request per page, whatever the number of intents. */
export async function listSince(conn: Connection, account: string, since: Checkpoint, o: ListOptions): Promise<ConfirmedSignatureInfo[]> {
  const address = new PublicKey(account);
  const out: ConfirmedSignatureInfo[] = [];
  let before: string | undefined;
  for (let page = 0; page < o.maxPages; page++) {
    const batch = await conn.getSignaturesForAddress(address, { until: since.signature, limit: o.limit, ...(before ? { before } : {}) }, o.commitment);
    // `until` should stop the walk; slots older than the checkpoint stop it too, should the node not know that signature.
    const newer = batch.filter((s) => s.slot >= since.slot);
    out.push(...newer);
    if (batch.length < o.limit || newer.length < batch.length) return out;
    before = batch[batch.length - 1].signature;
  }
  throw new Error(`more than ${o.maxPages * o.limit} signatures since the checkpoint for ${account}; refusing to skip any`);
}

/** First start: only the newest page, and only what happened within the lookback window. */
export async function listRecent(conn: Connection, account: string, o: ListOptions & { notBeforeMs: number }): Promise<{ all: ConfirmedSignatureInfo[]; recent: ConfirmedSignatureInfo[] }> {
  const all = await conn.getSignaturesForAddress(new PublicKey(account), { limit: o.limit }, o.commitment);
  // blockTime may be unknown to the node; such an entry is kept rather than silently dropped.
  const recent = all.filter((s) => s.blockTime == null || s.blockTime * 1000 >= o.notBeforeMs);
  return { all, recent };
}
