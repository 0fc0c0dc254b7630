/** An in-memory Ledger for source tests: records every call, de-duplicates on (method, txRef). */
import type { Method } from '../../src/domain/methods.ts';
import type { IngestOutcome, ReceivedPayment, RejectedObservation } from '../../src/domain/payment.ts';
import type { CheckpointUpdate, Ledger } from '../../src/domain/ports.ts';

export interface FakeLedger extends Ledger {
  /** Every ingest call, duplicates included, with the checkpoint it carried. */
  ingests: { payment: ReceivedPayment; checkpoint?: CheckpointUpdate; outcome: IngestOutcome }[];
  rejects: { observation: RejectedObservation; checkpoint?: CheckpointUpdate }[];
  checkpoints: Map<string, unknown>;
  /** How many open intents hasOpenIntents sees; it answers `openIntents > 0`. */
  openIntents: number;
  hasOpenIntentsCalls: number;
  /** Payments recorded once each (what settled or stayed unmatched). */
  payments(): ReceivedPayment[];
  /** Make the next n ingests throw, as a locked database would. */
  failIngests: number;
}

export function createFakeLedger(openIntents = 1): FakeLedger {
  const byRef = new Map<string, ReceivedPayment>();
  let seq = 0;
  const ledger: FakeLedger = {
    ingests: [],
    rejects: [],
    checkpoints: new Map(),
    openIntents,
    hasOpenIntentsCalls: 0,
    failIngests: 0,
    payments: () => [...byRef.values()],
    async ingest(payment, checkpoint) {
      if (ledger.failIngests > 0) {
        ledger.failIngests -= 1;
        throw new Error('database is locked');
      }
      const ref = `${payment.method}:${payment.txRef}`;
      let outcome: IngestOutcome;
      if (byRef.has(ref)) outcome = { kind: 'duplicate', paymentId: ref };
      else {
        byRef.set(ref, payment);
        seq += 1;
        outcome = { kind: 'settled', paymentId: ref, intentId: `intent_${seq}` };
      }
      // The checkpoint commits together with the payment, as in the real ledger.
      if (checkpoint) ledger.checkpoints.set(checkpoint.key, structuredClone(checkpoint.value));
      ledger.ingests.push({ payment, checkpoint, outcome });
      return outcome;
    },
    async reject(observation, checkpoint) {
      if (checkpoint) ledger.checkpoints.set(checkpoint.key, structuredClone(checkpoint.value));
      ledger.rejects.push({ observation, checkpoint });
    },
    async loadCheckpoint<T>(key: string) {
      const v = ledger.checkpoints.get(key);
      return v === undefined ? undefined : (structuredClone(v) as T);
    },
    async saveCheckpoint(update) {
      ledger.checkpoints.set(update.key, structuredClone(update.value));
    },
    async hasOpenIntents(_method: Method, _receiver: string) {
      ledger.hasOpenIntentsCalls += 1;
      return ledger.openIntents > 0;
    },
  };
  return ledger;
}
