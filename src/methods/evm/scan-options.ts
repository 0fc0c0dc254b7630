/** What one chain's scan is given: the currencies it watches, its endpoints, and how far and how much it reads. */
import type { Clock, Ledger, Logger } from '../../domain/ports.ts';
import type { UpstreamPool } from '../upstream-pool.ts';
import type { EvmEndpoint } from './rpc.ts';

/** One currency the scan reads: Transfers of `contract` to `recipient` (both lower case). */
export interface Watch {
  method: string;
  contract: string;
  recipient: string;
  /** The receiver as intents carry it (EIP-55). */
  receiver: string;
  decimals: number;
}

export interface ScanOptions {
  chainId: number;
  watches: Watch[];
  pool: UpstreamPool<EvmEndpoint>;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  /** Depth rule instead of the `finalized` tag (config `confirmations.blocks`). */
  confirmationBlocks?: number;
  /** Blocks under the newest when a node cannot resolve `finalized`. */
  fallbackDepth: number;
  /** Blocks per getLogs at first (the chain's default or the configured cap). */
  logRange: number;
  /** A configured cap no range ever exceeds. */
  maxBlockRange?: number;
  /** First start: scan this many blocks under the final one. */
  backfillBlocks: number;
  /** getLogs calls one tick makes at most before it yields (a backlog continues on the next tick). */
  maxRangesPerTick: number;
  /** How long a poll waits for the endpoints' final blocks before it goes on with those it has, ms. Default 2 s. */
  headWaitMs?: number;
}
