// Test doubles for the UPI mailbox source: an in-memory Ledger, a fake alert inspector
// driven by an X-Fake-Verdict header, and fixed clock/random/logger.
import type { Method } from '../../src/domain/methods.ts';
import type { IngestOutcome, ReceivedPayment, RejectedObservation } from '../../src/domain/payment.ts';
import type { CheckpointUpdate, Clock, Ledger, Logger, Random } from '../../src/domain/ports.ts';
import { migrate, openDatabase, type Db } from '../../src/db/open.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import type { TestStore } from './stores.ts';
import type { AlertVerdict, InspectOptions } from '../../src/methods/upi/alert.ts';
import { createUpiMailStore, type UpiMailStore } from '../../src/methods/upi/mail-store.ts';

export interface Ingest {
  payment: ReceivedPayment;
  checkpoint?: CheckpointUpdate;
  outcome: IngestOutcome;
}

export class FakeLedger implements Ledger {
  readonly ingests: Ingest[] = [];
  readonly rejections: { observation: RejectedObservation; checkpoint?: CheckpointUpdate }[] = [];
  readonly checkpoints = new Map<string, unknown>();
  /** Set to make the next ledger write fail (a database fault). */
  failNext: Error | undefined;
  #byTxRef = new Map<string, string>();
  #waiters = new Set<() => void>();

  /** Payments recorded once (not duplicates). */
  get recorded(): ReceivedPayment[] {
    return this.ingests.filter((i) => i.outcome.kind !== 'duplicate').map((i) => i.payment);
  }

  async ingest(payment: ReceivedPayment, checkpoint?: CheckpointUpdate): Promise<IngestOutcome> {
    this.#maybeFail();
    const seen = this.#byTxRef.get(payment.txRef);
    const outcome: IngestOutcome = seen
      ? { kind: 'duplicate', paymentId: seen }
      : { kind: 'unmatched', paymentId: `pay_${this.#byTxRef.size + 1}`, reason: 'no_matching_intent' };
    if (!seen) this.#byTxRef.set(payment.txRef, outcome.paymentId);
    this.ingests.push({ payment, checkpoint, outcome });
    if (checkpoint) this.checkpoints.set(checkpoint.key, checkpoint.value);
    this.#changed();
    return outcome;
  }

  async reject(observation: RejectedObservation, checkpoint?: CheckpointUpdate): Promise<void> {
    this.#maybeFail();
    // Idempotent on ref, like the real store.
    if (!this.rejections.some((r) => r.observation.ref === observation.ref)) this.rejections.push({ observation, checkpoint });
    if (checkpoint) this.checkpoints.set(checkpoint.key, checkpoint.value);
    this.#changed();
  }

  async loadCheckpoint<T>(key: string): Promise<T | undefined> {
    return this.checkpoints.get(key) as T | undefined;
  }

  async saveCheckpoint(update: CheckpointUpdate): Promise<void> {
    this.#maybeFail();
    this.checkpoints.set(update.key, update.value);
    this.#changed();
  }

  async hasOpenIntents(_method: Method, _receiver: string): Promise<boolean> {
    return true;
  }

  /** Resolves once `predicate` holds; rejects after `timeoutMs` with `what` in the message. */
  waitFor(predicate: () => boolean, timeoutMs: number, what = 'ledger condition'): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.#waiters.add(check);
    });
  }

  #maybeFail(): void {
    const err = this.failNext;
    this.failNext = undefined;
    if (err) throw err;
  }

  #changed(): void {
    for (const w of [...this.#waiters]) w();
  }
}

/**
 * Builds a test mail whose verdict the fake inspector reads from a header, e.g.
 * fakeMail('credit utr=123456789012 paise=49937').
 */
export function fakeMail(verdict: string, opts: { subject?: string; messageId?: string } = {}): string {
  return [
    // A configured bank's sender domain: the source fetches and inspects only such mail.
    'From: HDFC Bank InstaAlerts <alerts@hdfcbank.net>',
    'To: merchant@example.com',
    `Subject: ${opts.subject ?? 'test alert'}`,
    `Message-ID: <${opts.messageId ?? Math.random().toString(36).slice(2)}@bank.test>`,
    `X-Fake-Verdict: ${verdict}`,
    'Date: Sun, 22 Nov 2026 07:45:10 +0530',
    '',
    'body',
    '',
  ].join('\r\n');
}

/** The fake inspector: reads X-Fake-Verdict; anything without one is ignored. Records its calls. */
export function fakeInspector() {
  const calls: { raw: Buffer; opts: InspectOptions }[] = [];
  const inspect = async (raw: Buffer, opts: InspectOptions): Promise<AlertVerdict> => {
    calls.push({ raw, opts });
    const m = /^X-Fake-Verdict: *(.*)$/im.exec(raw.toString('utf8'));
    if (!m) return { kind: 'ignore', reason: 'not an alert' };
    const [kind, ...pairs] = m[1].trim().split(/\s+/);
    const kv = Object.fromEntries(pairs.map((p) => p.split('=') as [string, string]));
    switch (kind) {
      case 'credit':
        return {
          kind: 'credit',
          bank: 'hdfc',
          amountMinor: BigInt(kv.paise ?? '100'),
          utr: kv.utr ?? '000000000001',
          utrDerived: false,
          accountMask: '**4321',
          payerVpa: 'asha.verma@okaxis',
          payerName: 'ASHA VERMA',
          occurredAt: Date.UTC(2026, 10, 22, 2, 15, 10),
          messageId: '<fake@bank.test>',
          auth: { dkimDomain: 'hdfcbank.bank.in', selector: 's1', dmarc: 'pass', verified: true },
        };
      case 'reject':
        return { kind: 'reject', reason: kv.reason ?? 'dkim_fail', bank: 'hdfc', detail: { why: 'test' } };
      case 'retry':
        return { kind: 'retry', reason: kv.reason ?? 'dns_temperror', bank: 'hdfc' };
      case 'unread':
        return { kind: 'unread', bank: 'hdfc', detail: { subject: 'test alert' } };
      case 'throw':
        throw new Error('inspector bug');
      default:
        return { kind: 'ignore', reason: kind ?? 'empty' };
    }
  };
  return { inspect, calls };
}

export const fixedClock = (ms = Date.UTC(2026, 10, 22, 12, 0, 0)): Clock & { set(ms: number): void } => {
  let now = ms;
  return { now: () => now, set: (v) => void (now = v) };
};

export const midRandom = (): Random => ({
  bytes: (n) => new Uint8Array(n),
  uuid: () => '00000000-0000-4000-8000-000000000000',
  float: () => 0.5,
});

/** A logger that keeps lines for assertions (and stays silent). */
export function memoryLogger(): Logger & { lines: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const make = (base: Record<string, unknown>): Logger => ({
    debug: (msg, f) => void lines.push({ level: 'debug', msg, fields: { ...base, ...f } }),
    info: (msg, f) => void lines.push({ level: 'info', msg, fields: { ...base, ...f } }),
    warn: (msg, f) => void lines.push({ level: 'warn', msg, fields: { ...base, ...f } }),
    error: (msg, f) => void lines.push({ level: 'error', msg, fields: { ...base, ...f } }),
    child: (f) => make({ ...base, ...f }),
  });
  return Object.assign(make({}), { lines });
}

/**
 * The real UPI mail store on a SQLite database (a file, so a test can reopen it as a restarted
 * daemon would; ':memory:' by default). Migrated like the app's.
 */
export async function sqliteMailStore(file = ':memory:'): Promise<{ db: Db; store: UpiMailStore; close: () => Promise<void> }> {
  const db = openDatabase(file);
  await migrate(db);
  return { db, store: createUpiMailStore(db), close: () => db.destroy() };
}

/** The real UPI mail store on a store of the test's choice: SQLite in memory, or a fresh PostgreSQL database. */
export async function mailStoreOn(on: TestStore): Promise<{ db: Db; store: UpiMailStore; close: () => Promise<void> }> {
  if (on.kind === 'sqlite') return sqliteMailStore();
  const db = openPostgres({ url: await on.database(), pool: 2, statementTimeoutMs: 5000 });
  await migrate(db);
  return { db, store: createUpiMailStore(db), close: () => db.destroy() };
}

/** For tests whose mail never parks or goes unread: any use of the store fails the test (the crash marks are kept nowhere). */
export function unusedMailStore(): UpiMailStore {
  const fail = async (): Promise<never> => {
    throw new Error('the mail store was not expected to be used');
  };
  return { park: fail, due: fail, reschedule: fail, release: fail, parkedCount: fail, noteUnread: fail, unreadSince: fail, markInspecting: async () => {}, inspectingHolder: async () => undefined, unmarkInspecting: async () => {}, pruneRejected: async () => 0 };
}
