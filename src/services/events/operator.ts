import { writeTx, type Db } from '../../db/open.ts';
import { attemptsOf, eventsOfIntent, getEvent, listEvents, replayEvents } from '../../db/events.ts';
import type { EventsTable } from '../../db/schema.ts';
import { PaydError } from '../../domain/errors.ts';
import { isoOrNull, isoUtc } from '../../domain/iso-time.ts';
import type { Clock } from '../../domain/ports.ts';
import type { Actor } from '../merchants/index.ts';
import type { Outbox } from './outbox.ts';
import { audit } from '../../db/audit.ts';

export interface EventSummary {
  event_id: string;
  type: string;
  intent_id: string | null;
  client_id: string;
  status: EventsTable['status'];
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export const summarizeEvent = (e: EventsTable): EventSummary => ({
  event_id: e.id,
  type: e.type,
  intent_id: e.intent_id,
  client_id: e.merchant_id,
  status: e.status,
  attempts: e.attempts,
  next_attempt_at: e.status === 'pending' ? isoOrNull(e.next_attempt_at) : null,
  last_error: e.last_error,
  created_at: isoUtc(e.created_at),
  delivered_at: isoOrNull(e.delivered_at),
});

/** Operator views of the outbox: list, show with attempts, replay. */
export function createEventService(deps: { db: Db; clock: Clock; outbox: Outbox }) {
  async function attemptsLog(eventIds: string[]) {
    const rows = await attemptsOf(deps.db, eventIds);
    return rows.map((a) => ({
      event_id: a.event_id,
      attempt: a.attempt,
      url: a.url,
      at: isoOrNull(a.started_at),
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      error: a.error,
    }));
  }

  return {
    async list(filter: { status?: string; limit?: number }): Promise<EventSummary[]> {
      return (await listEvents(deps.db, { status: (filter.status || undefined) as EventsTable['status'] | undefined, limit: filter.limit ?? 50 })).map(summarizeEvent);
    },

    async show(eventId: string) {
      const e = await getEvent(deps.db, eventId);
      if (!e) throw new PaydError('NOT_FOUND', `no webhook event ${eventId}`);
      return { ...summarizeEvent(e), body: JSON.parse(e.body) as unknown, attempts_log: await attemptsLog([e.id]) };
    },

    async forIntent(intentId: string) {
      const events = await eventsOfIntent(deps.db, intentId);
      const attempts = await attemptsLog(events.map((e) => e.id));
      return events.map((e) => ({ ...summarizeEvent(e), attempts_log: attempts.filter((a) => a.event_id === e.id) }));
    },

    /** A signed webhook.test for one merchant; returns its event id. */
    async enqueueTest(clientId: string): Promise<string> {
      // No wake-up: the caller sends it at once itself (operator-actions.ts); waking a leader would race it.
      return writeTx(deps.db, (tx) => deps.outbox.enqueue(tx, clientId, null, 'webhook.test', { client_id: clientId, message: 'payd webhook test' }));
    },

    /** Queues events for another round of delivery (same webhook-id, fresh retry schedule). */
    async replay(target: { eventId: string } | { failed: true }, actor: Actor = 'cli'): Promise<string[]> {
      const now = deps.clock.now();
      const ids = await replayEvents(deps.db, target, now);
      if (!ids) throw new PaydError('NOT_FOUND', `no webhook event ${'eventId' in target ? target.eventId : ''}`);
      await audit(deps.db, { at: now, actor, action: 'webhooks.replay', subject: 'eventId' in target ? target.eventId : 'failed', details: { count: ids.length } });
      deps.outbox.notify();
      return ids;
    },
  };
}

export type EventService = ReturnType<typeof createEventService>;
