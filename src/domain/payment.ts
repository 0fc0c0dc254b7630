import type { Method } from './methods.ts';
import type { PaymentReason } from './payment-policy.ts';

/** Where an observation came from. `manual` is an operator's reconciliation. */
/** Which upstream saw a payment; a new method's source names its own. */
export type ObservationSource = 'imap' | 'trongrid' | 'solana' | 'manual' | 'sandbox' | (string & {});

/**
 * One normalized incoming payment, whatever the method. Every source's adapter
 * produces exactly this; the core never sees provider data.
 */
export interface ReceivedPayment {
  method: Method;
  /** Receiving address: VPA for UPI, TRON address, Solana wallet. */
  receiver: string;
  /**
   * Credited amount in the method's base units (paise, sun, lamports, wei), exact for any
   * decimals up to 18: a bigint, never a JS number (an 18-decimal token passes 2^53 at 0.009).
   */
  amountMinor: bigint;
  /** UTR / TRON tx id (per Transfer row, see txHash) / Solana signature; unique per method. */
  txRef: string;
  /**
   * The chain transaction this payment is part of, when one transaction can carry
   * several payments (TRON Transfer rows sharing a transaction id). The merchant sees
   * it as transaction_hash. Default: txRef.
   */
  txHash?: string;
  /** Solana Pay reference keys found in the transaction (candidates; the core checks them). */
  references?: string[];
  /** When the payment happened upstream (block time, alert time), ms since epoch. */
  occurredAt: number;
  /** When payd saw it, ms since epoch. */
  observedAt: number;
  source: ObservationSource;
  /** Provider facts kept for the operator (sender, block, DKIM verdict…). JSON-safe. */
  evidence?: Record<string, unknown>;
  /**
   * The observation it was read from (a mail: its "imap:<uidvalidity>:<uid>" ref and raw bytes),
   * kept only should it turn out to be a rejection (a known reference with other facts).
   */
  origin?: { ref: string; raw?: Uint8Array };
}

/** Something a source saw that is not a payment it can accept (forged mail, unparseable alert). */
export interface RejectedObservation {
  source: ObservationSource;
  method: Method;
  /** Stable id of the observation at the source (e.g. "imap:<uidvalidity>:<uid>"), unique. */
  ref: string;
  reason: string;
  detail?: Record<string, unknown>;
  raw?: Uint8Array;
  observedAt: number;
}

export type IngestOutcome =
  /** `also`: further intents the same transaction settled (several Solana Pay references). */
  | { kind: 'settled'; paymentId: string; intentId: string; also?: { paymentId: string; intentId: string }[] }
  | { kind: 'unmatched'; paymentId: string; reason: UnmatchedReason }
  /** Attributed to an intent but not credited (late under "hold", short, canceled, after settlement): the merchant decides. */
  | { kind: 'held'; paymentId: string; intentId: string; reason: PaymentReason }
  /** A part of what an intent asks (Solana Pay reference): credited, the intent waits for the rest. */
  | { kind: 'credited'; paymentId: string; intentId: string }
  | { kind: 'duplicate'; paymentId: string }
  /** Not storable as a payment (an amount beyond any intent); kept as a rejection. */
  | { kind: 'rejected'; reason: string };

export type UnmatchedReason = 'no_matching_intent' | 'underpaid' | 'too_early' | 'late' | 'ambiguous' | 'already_settled' | 'canceled';
