/**
 * Which Solana transaction versions payd reads, and which failures of one
 * getTransaction mean "this transaction cannot be read" (record it, move on) rather
 * than "the RPC is unwell" (back off, retry).
 */

/**
 * The highest transaction version the installed @solana/web3.js parses (1.99 accepts
 * legacy, 0 and 1). Mainnet serves v1 since 2026-09-15 (SIMD-0385); asking for less
 * makes the node answer -32015 for every v1 transaction.
 */
export const MAX_TRANSACTION_VERSION = 1;

/** JSON-RPC "Transaction version (N) is not supported by the requesting client". */
const UNSUPPORTED_VERSION = -32015;

/**
 * True when `err` from getParsedTransaction concerns this transaction only: a
 * version newer than we can ask for, or a result web3.js cannot decode (superstruct's
 * StructError, e.g. a future `version: 2`). Rate limits, timeouts and node errors
 * are not, and stay retryable.
 */
export function isUnreadableTransaction(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; name?: unknown };
  return e.code === UNSUPPORTED_VERSION || e.name === 'StructError';
}
