import type { RejectedObservation } from '../../domain/payment.ts';
import { UPI_ID } from './id.ts';
import { messageRef } from './mailbox-checkpoint.ts';

/** One fetched message, as much of it as the source needs. */
export interface MailboxMessage {
  uid: number;
  source: Buffer;
  /** IMAP INTERNALDATE, ms since epoch (when the server received it). */
  internalDate?: number;
}

/** What is known of a message before its bytes are fetched. */
export interface MailboxEnvelope {
  uid: number;
  /** RFC822.SIZE, bytes. */
  size: number;
  internalDate?: number;
}

/** Raw bytes kept of a rejected message the bank's DKIM signature does not vouch for. */
export const UNVERIFIED_RAW_BYTES = 64 * 1024;

/** Mail anyone can send costs at most 64 KiB of disk; mail the bank signed is kept whole (evidence). */
export const keptRaw = (raw: Buffer, authenticated: boolean): Buffer => (authenticated || raw.length <= UNVERIFIED_RAW_BYTES ? raw : raw.subarray(0, UNVERIFIED_RAW_BYTES));

/**
 * A mail that fails checks: kept for the operator with its reason and raw bytes (capped unless
 * `authenticated`; none when the body was never fetched).
 */
export function rejection(
  msg: { uid: number; source?: Buffer },
  ctx: { uidValidity: string; observedAt: number; reason: string; bank?: string; detail?: Record<string, unknown>; authenticated?: boolean },
): RejectedObservation {
  const truncated = msg.source !== undefined && !ctx.authenticated && msg.source.length > UNVERIFIED_RAW_BYTES;
  return {
    source: 'imap',
    method: UPI_ID,
    ref: messageRef(ctx.uidValidity, msg.uid),
    reason: ctx.reason,
    detail: { ...(ctx.bank ? { bank: ctx.bank } : {}), ...ctx.detail, uid: msg.uid, uidValidity: ctx.uidValidity, ...(truncated ? { rawBytes: msg.source!.length, rawKeptBytes: UNVERIFIED_RAW_BYTES } : {}) },
    ...(msg.source !== undefined ? { raw: keptRaw(msg.source, ctx.authenticated === true) } : {}),
    observedAt: ctx.observedAt,
  };
}
