import type { Tx } from '../../db/open.ts';
import { enqueueEvent } from '../../db/events.ts';
import { stringifyJson } from '../../domain/json.ts';
import type { Clock, Random, Wakeups } from '../../domain/ports.ts';

export type EventType = 'payment.success' | 'payment.held' | 'payment.refunded' | 'intent.expired' | 'intent.canceled' | 'webhook.test';

/**
 * The webhook outbox. Events are written inside the transaction that changes state,
 * so a crash can never settle without an event or send an event for a rolled-back change.
 */
export function createOutbox(deps: { clock: Clock; random: Random; wakeups?: Wakeups }) {
  return {
    /**
     * Inserts the event; the body is fixed now so every retry sends the same bytes. Call it
     * inside the write transaction: the counter row it bumps numbers events in commit order.
     */
    async enqueue(tx: Tx, merchantId: string, intentId: string | null, type: EventType, data: unknown): Promise<string> {
      const now = deps.clock.now();
      const id = `evt_${deps.random.uuid().replace(/-/g, '')}`;
      const body = stringifyJson({ type, timestamp: new Date(now).toISOString(), data });
      await enqueueEvent(tx, { id, merchantId, intentId, type, body, now });
      return id;
    },
    /**
     * After the enqueuing transaction committed: wakes the dispatcher and the checkout's live
     * status of the intents named, on this node and (PostgreSQL) on every other.
     */
    notify(intentIds: readonly string[] = []): void {
      deps.wakeups?.publish(intentIds);
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
