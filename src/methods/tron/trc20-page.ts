/**
 * Pure reading of one TronGrid page of
 * GET /v1/accounts/{address}/transactions/trc20: envelope
 * `{ data: [...], success: true, meta: { at, page_size, fingerprint?, links?: { next } } }`,
 * items `{ transaction_id, token_info: { symbol, address, decimals, name }, block_timestamp, from, to, type, value }`.
 */
import { toBase58 } from './address.ts';
import { errorText } from './client.ts';

export interface PageFilter {
  /** Our receiving address, base58. */
  receiver: string;
  /** The configured token contract, base58. */
  contract: string;
  /** Decimals the method's minor unit has (USDT: 6). */
  decimals: number;
}

/** A confirmed-listing item that is a payment to us in the configured token. */
export interface Trc20Transfer {
  kind: 'transfer';
  txid: string;
  blockTimestamp: number;
  from: string;
  value: bigint;
  symbol?: string;
}

/** An item addressed to us in our token that cannot be accepted as a payment (kept for the operator). */
export interface Trc20Invalid {
  kind: 'invalid';
  txid: string;
  blockTimestamp: number;
  reason: string;
  detail: Record<string, unknown>;
}

/**
 * A transfer of our token from our address to another one. Never a payment; read only so a
 * transaction's incoming rows can be netted against what it took out (netting.ts).
 */
export interface Trc20Outgoing {
  kind: 'outgoing';
  txid: string;
  blockTimestamp: number;
  to: string;
  value: bigint;
}

export type Trc20Item = Trc20Transfer | Trc20Invalid | Trc20Outgoing;

export interface Trc20Page {
  /** Relevant items in the order the API listed them. */
  items: Trc20Item[];
  /** Items for other tokens, other kinds (Approval), other addresses, zero value. */
  ignored: number;
  /** Items without a usable transaction id or timestamp; they cannot even be rejected by ref. */
  malformed: number;
  /** Server time of the answer, ms, if given. */
  at?: number;
  /** Opaque cursor of the next page; absent on the last one. */
  fingerprint?: string;
}

export class Trc20FormatError extends Error {
  override name = 'Trc20FormatError';
}

const TXID = /^[0-9a-fA-F]{64}$/;
const DIGITS = /^\d{1,78}$/; // uint256 has at most 78 decimal digits

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isTimestamp = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x > 0;

/** Parses one page; throws Trc20FormatError when the envelope itself is not what TronGrid documents. */
export function parseTrc20Page(body: unknown, filter: PageFilter): Trc20Page {
  if (!isObject(body)) throw new Trc20FormatError('response is not a JSON object');
  if (body.success !== true) {
    const why = errorText(body) ?? 'success is not true';
    throw new Trc20FormatError(`TronGrid answered without success: ${why}`);
  }
  if (!Array.isArray(body.data)) throw new Trc20FormatError('response has no data array');
  const meta = isObject(body.meta) ? body.meta : {};
  const page: Trc20Page = { items: [], ignored: 0, malformed: 0 };
  if (isTimestamp(meta.at)) page.at = meta.at;
  if (typeof meta.fingerprint === 'string' && meta.fingerprint !== '') page.fingerprint = meta.fingerprint;

  for (const raw of body.data) {
    const item = readItem(raw, filter);
    if (item === 'ignored') page.ignored += 1;
    else if (item === 'malformed') page.malformed += 1;
    else page.items.push(item);
  }
  return page;
}

function readItem(raw: unknown, filter: PageFilter): Trc20Item | 'ignored' | 'malformed' {
  if (!isObject(raw)) return 'malformed';
  const token = isObject(raw.token_info) ? raw.token_info : {};
  // Filter first: only our token, only Transfer events, only rows to us or from us.
  if (raw.type !== 'Transfer') return 'ignored';
  if (toBase58(token.address) !== filter.contract) return 'ignored';
  const incoming = toBase58(raw.to) === filter.receiver;
  if (!incoming && toBase58(raw.from) !== filter.receiver) return 'ignored';

  if (typeof raw.transaction_id !== 'string' || !TXID.test(raw.transaction_id)) return 'malformed';
  if (!isTimestamp(raw.block_timestamp)) return 'malformed';
  const txid = raw.transaction_id.toLowerCase();
  const blockTimestamp = raw.block_timestamp;
  const invalid = (reason: string): Trc20Invalid => ({
    kind: 'invalid',
    txid,
    blockTimestamp,
    reason,
    detail: { value: raw.value, from: raw.from, decimals: token.decimals },
  });

  if (!incoming) {
    // What our address sent. TronGrid is not known to list such a row unreadable; if it did, it is logged as
    // malformed rather than netted as zero.
    const to = toBase58(raw.to);
    if (typeof raw.value !== 'string' || !DIGITS.test(raw.value) || !to || (token.decimals !== undefined && Number(token.decimals) !== filter.decimals)) return 'malformed';
    const value = BigInt(raw.value);
    return value === 0n ? 'ignored' : { kind: 'outgoing', txid, blockTimestamp, to, value };
  }
  if (typeof raw.value !== 'string' || !DIGITS.test(raw.value)) return invalid('value is not a base-unit integer string');
  // The amount is read in the method's minor unit; a token with other decimals would be mis-scaled.
  if (token.decimals !== undefined && Number(token.decimals) !== filter.decimals) return invalid(`token has ${String(token.decimals)} decimals, expected ${filter.decimals}`);
  const value = BigInt(raw.value);
  // Zero-value transfers are the address-poisoning pattern; they pay nothing.
  if (value === 0n) return 'ignored';
  const from = toBase58(raw.from);
  if (!from) return invalid('sender is not a TRON address');

  const transfer: Trc20Transfer = { kind: 'transfer', txid, blockTimestamp, from, value };
  if (typeof token.symbol === 'string') transfer.symbol = token.symbol;
  return transfer;
}
