import type { Logger, Random } from '../domain/ports.ts';
import type { PaymentSource } from '../methods/source.ts';
import type { IntentService } from '../services/intents/index.ts';
import type { PaydLedger } from '../services/ledger/index.ts';
import type { Dispatcher } from '../webhooks/dispatcher.ts';
import { runLoop } from '../runtime/loop.ts';
import type { SourceHealth } from '../workers/source-health.ts';
import { superviseSource } from '../workers/supervise.ts';

/** How often the leader records its sources' positions for `payd doctor` (another process), ms. */
const POSITION_RECORD_MS = 5_000;
/** How often expiry runs, ms. */
const EXPIRY_INTERVAL_MS = 5_000;

/** The checkpoint a source's position is recorded under (not a source checkpoint: nothing resumes from it). */
export const positionKey = (key: string): string => `lag:${key}`;

/** What the leader records of a source for `payd doctor` in another process; `reached` is absent in records written before it. */
export interface RecordedPosition {
  asOf?: number;
  reached?: boolean;
  error?: string;
}

export interface LeaderDeps {
  dispatcher: Dispatcher;
  ledger: PaydLedger;
  intents: Pick<IntentService, 'expireDue'>;
  log: Logger;
  random: Random;
  /** webhooks.timeoutSeconds, in ms. */
  webhookTimeoutMs: number;
  /** Epoch ms by which close() must be done, once closing started. */
  closingDeadline: () => number | null;
  /** Fiat pricing: the rate refresh and its interval, ms (none: no pair lists a source). */
  rates?: { run(signal: AbortSignal, intervalMs: number): Promise<void>; intervalMs: number } | null;
  /** More leader-only work (notifications), run beside the rest until `signal` aborts. */
  also?: (signal: AbortSignal) => Promise<void>;
}

/** The leader's work: sources (supervised), the webhook dispatcher and expiry, until `signal` aborts. */
export function createLeaderWork(deps: LeaderDeps) {
  const { dispatcher, ledger, log, random } = deps;
  return async function lead(signal: AbortSignal, health: SourceHealth[], running: PaymentSource[], previous: { holder: string; dead: boolean } | undefined): Promise<void> {
    if (previous?.dead) {
      const freed = await dispatcher.releaseLeasesOf(previous.holder);
      if (freed > 0) log.info('freed webhook deliveries of the dead previous leader', { events: freed });
    }
    const work: Promise<void>[] = running.map((source, i) => {
      log.info('payment source starting', { source: source.name });
      return superviseSource({ source, health: health[i]!, signal, log: log.child({ component: 'source' }), random });
    });
    // On shutdown, in-flight deliveries may run until 2.5 s before the deadline (room to record
    // the cut-off ones, release the lease and close the database); on a lost lease, one timeout.
    work.push(
      dispatcher.run(signal, {
        drainUntil: () => {
          const closing = deps.closingDeadline();
          return (closing ?? Date.now() + deps.webhookTimeoutMs + 1000) - (closing ? 2500 : 0);
        },
      }),
    );
    const expiryLog = log.child({ component: 'expiry' });
    // The lag as this leader sees it, for `payd doctor` in another process.
    const recordPositions = async () => {
      for (const h of health) {
        const asOf = h.position();
        if (asOf !== undefined) await ledger.saveCheckpoint({ key: positionKey(h.key), value: { asOf, ...h.reach() } satisfies RecordedPosition });
      }
    };
    work.push(runLoop({ name: 'source positions', intervalMs: POSITION_RECORD_MS, tick: recordPositions, signal, log: log.child({ component: 'lag' }), random }));
    if (deps.rates) work.push(deps.rates.run(signal, deps.rates.intervalMs));
    if (deps.also) work.push(deps.also(signal));
    work.push(runLoop({ name: 'intent expiry', intervalMs: EXPIRY_INTERVAL_MS, tick: async () => void (await deps.intents.expireDue()), signal, log: expiryLog, random }));
    await Promise.all(work);
  };
}
