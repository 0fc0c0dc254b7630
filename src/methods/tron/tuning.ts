/** The TRON poller's pacing and its endpoints: shared by the sweep (sweep.ts) and the re-scan (rescan.ts). */
import type { TronGridClient } from './client.ts';

export interface PollerTuning {
  /** First start without a checkpoint: how far back to look, ms. */
  lookbackMs: number;
  /** Re-list this much before the watermark, ms; must exceed TRON confirmation + indexing lag (~1 min). */
  overlapMs: number;
  /** With no open intents, still sweep this often so stray payments are recorded, ms. */
  idleSweepMs: number;
  /** TronGrid's maximum page size. */
  pageLimit: number;
  /** Bounds one tick; the next tick continues from the checkpoint. */
  maxPagesPerTick: number;
  /** Deep re-scan period, ms: list `rescanWindowMs` again, whatever the watermark says. */
  rescanMs: number;
  rescanWindowMs: number;
  /** A credit no second endpoint lists for this long (ms) is recorded as rejected (`unconfirmed_transfer`). */
  unconfirmedMs: number;
  /** At least this long between two requests to an endpoint without a key, ms (TronGrid's anonymous limit is 1 per second per method). */
  minRequestIntervalMs: number;
  /** How long a cycle waits for the endpoints' heads before listing on one that answered, ms. */
  headWaitMs?: number;
}

/** One TronGrid-compatible endpoint: its client and its own pacing. */
export interface TronEndpoint {
  url: string;
  apiKey?: string;
  weight: number;
  client: TronGridClient;
  /** 0 with a key; TronGrid's anonymous pace without. */
  minRequestIntervalMs: number;
}
