/**
 * The contract between the mailbox source and the alert inspector: what one raw
 * e-mail turned out to be. The inspector is pure apart from DNS look-ups (DKIM).
 */
export type BankId = 'hdfc' | 'icici' | 'sbi' | 'axis' | 'kotak' | 'yes' | 'indusind' | 'federal';

export interface ConfiguredAccount {
  bank: BankId;
  /** The last 3–6 digits, or the whole account number (then the leading digits a bank prints are compared too). */
  accountEnding: string;
}

/** A verified UPI credit to one of the configured accounts. */
export interface CreditAlert {
  kind: 'credit';
  bank: BankId;
  amountMinor: bigint; // paise
  /** 12-digit UTR / RRN; for banks without one (SBI) a stable id derived from the signed alert. */
  utr: string;
  utrDerived: boolean;
  accountMask: string;
  payerVpa?: string;
  payerName?: string;
  /** When the credit happened, ms since epoch (alert time; body date + Date header). */
  occurredAt: number;
  messageId?: string;
  /** DKIM/DMARC verdict kept as evidence. */
  auth: { dkimDomain: string; selector?: string; dmarc: string; verified: boolean };
}

export type AlertVerdict =
  | CreditAlert
  /** Not money in (marketing, balance, debit, OTP…), or mail payd cannot trust to be the bank's: nothing to keep. */
  | { kind: 'ignore'; reason: string; bank?: BankId }
  /**
   * Reads like a bank credit but settles nothing (forged, replayed, refund, other account, unreadable,
   * `suspicious_counterparty`: the payer's own text reads like the bank's): keep for the operator.
   */
  | { kind: 'reject'; reason: string; bank?: BankId; detail?: Record<string, unknown>; /** The bank's DKIM signature verified: keep the raw bytes whole. */ authenticated?: true }
  /** A verified bank mail no template reads: not money we can see, but loud (template churn). */
  | { kind: 'unread'; bank: BankId; detail?: Record<string, unknown> }
  /** The bank's key or DMARC record could not be fetched: park the message and look again later. */
  | { kind: 'retry'; reason: string; bank?: BankId; detail?: Record<string, unknown> };

/** Resolver with the shape of dns.promises.resolve, as mailauth expects. */
export type DnsResolver = (name: string, rrtype: string) => Promise<unknown>;

export interface InspectOptions {
  accounts: ConfiguredAccount[];
  /** Addresses the bank sends our alerts to (methods.UPI.alertRecipients). */
  alertRecipients: string[];
  /** false only for operators who accept forged-mail risk. */
  dkimRequired: boolean;
  resolver: DnsResolver;
  /** IMAP INTERNALDATE, ms since epoch; used when the body has only a date. */
  receivedAt?: number;
}
