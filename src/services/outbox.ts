import type { Tx } from '../db/open.ts';
import { stringifyJson } from '../domain/json.ts';
import type { Clock, Random, Wakeups } from '../domain/ports.ts';

export type EventType = 'payment.success' | 'payment.held' | 'payment.refunded' | 'intent.expired' | 'intent.canceled' | 'webhook.test';

/**
 * The webhook outbox. Events are written inside the transaction that changes state,
 * so a crash can never settle without an event or send an event for a rolled-back change.
 */
export function createOutbox(d: { clock: Clock; random: Random; wakeups?: Wakeups }) {
  return {
    /**
     * Inserts the event; the body is fixed now so every retry sends the same bytes. Call it
     * inside the write transaction: the counter row it bumps numbers events in commit order.
     */
    async enqueue(tx: Tx, merchantId: string, intentId: string | null, type: EventType, data: unknown): Promise<string> {
      const { value: seq } = await tx
        .updateTable('sequences')
        .set((eb) => ({ value: eb('value', '+', 1) }))
        .where('name', '=', 'events')
        .returning('value')
        .executeTakeFirstOrThrow();
      const now = d.clock.now();
      const id = `evt_${d.random.uuid().replace(/-/g, '')}`;
      const body = stringifyJson({ type, timestamp: new Date(now).toISOString(), data });
      await tx
        .insertInto('events')
        .values({ id, merchant_id: merchantId, intent_id: intentId, type, body, status: 'pending', attempts: 0, retry_base: 0, next_attempt_at: now, locked_until: 0, last_error: null, created_at: now, delivered_at: null, seq })
        .execute();
      return id;
    },
    /**
     * After the enqueuing transaction committed: wakes the dispatcher and the checkout's live
     * status of the intents named, on this node and (PostgreSQL) on every other.
     */
    notify(intentIds: readonly string[] = []): void {
      d.wakeups?.publish(intentIds);
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
