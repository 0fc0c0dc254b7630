import type { Db } from '../../db/open.ts';
import type { MethodLabels } from '../../domain/intent.ts';
import type { Method } from '../../domain/methods.ts';
import type { PaymentPolicy } from '../../domain/payment-policy.ts';
import type { Clock, Logger, Metrics, Random } from '../../domain/ports.ts';
import type { Outbox } from '../events/outbox.ts';

export interface LedgerDeps {
  db: Db;
  clock: Clock;
  random: Random;
  log: Logger;
  outbox: Outbox;
  livemode: boolean;
  publicUrl: string;
  /** Decimal places of a method's minor unit. */
  decimalsOf: (method: string) => number;
  /** An open intent's option labels (ViewContext.labelsOf); default: the method's id, no network. */
  labelsOf?: (method: string) => MethodLabels;
  /** How far before an intent's creation a payment may have happened and still match it, ms (clock skew). */
  skewMs?: number;
  metrics?: Metrics;
  /** Each method's policies for payments that are not exactly right; default DEFAULT_POLICY. */
  policies?: (method: Method) => PaymentPolicy;
}

/** The deps with their defaults filled in, as the ledger's parts use them. */
export interface LedgerContext extends LedgerDeps {
  skewMs: number;
  metrics: Metrics;
  policyOf: (method: Method) => PaymentPolicy;
}

export interface IngestOptions {
  /** Manual reconciliation: settle exactly this intent. */
  intentId?: string;
  note?: string;
  /** Who settled by hand, for the audit log (default `cli`; the console: `console:<passkey name>`). */
  actor?: string;
  /**
   * Manual settlement with a recorded payment that is not what the intent is still due: the
   * operator saw the difference and confirmed it. Without it such a settlement is refused.
   */
  acceptDifference?: boolean;
}
