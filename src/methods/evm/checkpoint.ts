/**
 * A chain scan's checkpoint (`evm:<chainId>`): the last block worked through and its hash, saved
 * with each ingested payment so a restart backfills from it.
 */

/** The stored checkpoint: every block up to `block` is worked through; `hash` is that block's, when known. */
export interface EvmCheckpoint {
  v: 1;
  block: string;
  hash?: string;
}

export const checkpointKey = (chainId: number): string => `evm:${chainId}`;

export function readCheckpoint(raw: unknown): EvmCheckpoint | undefined {
  const c = raw as Partial<EvmCheckpoint> | undefined;
  // -1: nothing worked through yet (a first start on a chain younger than its backfill or finality depth).
  if (!c || c.v !== 1 || typeof c.block !== 'string' || !/^(-1|\d+)$/.test(c.block)) return undefined;
  return { v: 1, block: c.block, ...(typeof c.hash === 'string' ? { hash: c.hash } : {}) };
}
