/**
 * An in-memory Ledger for the Solana source tests: de-duplicates on (method, txRef),
 * keeps checkpoints with the payment that moved them, and matches a few test intents
 * (reference first: credit ≥ pay settles, less is underpaid; else exact amount). It is
 * a stand-in for the real pipeline, only rich enough to show what the source feeds it.
 */
import type { Method } from '../../src/domain/methods.ts';
import type { IngestOutcome, ReceivedPayment, RejectedObservation } from '../../src/domain/payment.ts';
import type { CheckpointUpdate, Clock, Ledger, Logger, Random } from '../../src/domain/ports.ts';

export interface TestIntent {
  id: string;
  method: Method;
  payMinor: bigint;
  reference?: string;
  settledBy?: string;
}

export class FakeLedger implements Ledger {
  readonly payments: ReceivedPayment[] = [];
  readonly outcomes: IngestOutcome[] = [];
  readonly rejected: RejectedObservation[] = [];
  readonly checkpoints = new Map<string, unknown>();
  readonly intents: TestIntent[] = [];
  /** Calls made, to show the source's cost does not depend on intents. */
  hasOpenIntentsCalls = 0;

  async ingest(p: ReceivedPayment, cp?: CheckpointUpdate): Promise<IngestOutcome> {
    if (cp) this.checkpoints.set(cp.key, cp.value);
    const dup = this.payments.findIndex((x) => x.method === p.method && x.txRef === p.txRef);
    if (dup >= 0) return { kind: 'duplicate', paymentId: String(dup) };
    this.payments.push(p);
    const paymentId = String(this.payments.length - 1);
    const open = this.intents.filter((i) => i.method === p.method && !i.settledBy);
    const byRef = open.find((i) => i.reference && p.references?.includes(i.reference));
    const hit = byRef ?? open.find((i) => i.payMinor === p.amountMinor);
    let outcome: IngestOutcome;
    if (byRef && p.amountMinor < byRef.payMinor) outcome = { kind: 'unmatched', paymentId, reason: 'underpaid' };
    else if (hit) {
      hit.settledBy = p.txRef;
      outcome = { kind: 'settled', paymentId, intentId: hit.id };
    } else outcome = { kind: 'unmatched', paymentId, reason: 'no_matching_intent' };
    this.outcomes.push(outcome);
    return outcome;
  }

  async reject(o: RejectedObservation, cp?: CheckpointUpdate): Promise<void> {
    if (cp) this.checkpoints.set(cp.key, cp.value);
    if (!this.rejected.some((r) => r.ref === o.ref)) this.rejected.push(o);
  }

  async loadCheckpoint<T>(key: string): Promise<T | undefined> {
    return this.checkpoints.get(key) as T | undefined;
  }

  async saveCheckpoint(u: CheckpointUpdate): Promise<void> {
    this.checkpoints.set(u.key, u.value);
  }

  async hasOpenIntents(method: Method): Promise<boolean> {
    this.hasOpenIntentsCalls += 1;
    return this.intents.some((i) => i.method === method && !i.settledBy);
  }
}

export const testClock = (): Clock => ({ now: () => Date.now() });

export const testRandom = (): Random => ({
  bytes: (n) => new Uint8Array(n),
  uuid: () => '00000000-0000-4000-8000-000000000000',
  float: () => 0.5,
});

/** A logger that keeps every line, for asserting what the operator would see. */
export function recordingLogger(lines: { level: string; msg: string; fields: Record<string, unknown> }[] = []): Logger & { lines: typeof lines } {
  const make = (base: Record<string, unknown>): Logger => ({
    debug: (msg, f) => lines.push({ level: 'debug', msg, fields: { ...base, ...f } }),
    info: (msg, f) => lines.push({ level: 'info', msg, fields: { ...base, ...f } }),
    warn: (msg, f) => lines.push({ level: 'warn', msg, fields: { ...base, ...f } }),
    error: (msg, f) => lines.push({ level: 'error', msg, fields: { ...base, ...f } }),
    child: (f) => make({ ...base, ...f }),
  });
  return Object.assign(make({}), { lines });
}

/** Polls `cond` every 10 ms; fails after `timeoutMs`. */
export async function waitFor(cond: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
