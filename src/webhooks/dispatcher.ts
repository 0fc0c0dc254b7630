import type { Db } from '../db/open.ts';
import { claimDueEvents, claimEvent, finishEvent, postponeEvent, releaseLeasesOf, skipEvent } from '../db/events.ts';
import { PaydError } from '../domain/errors.ts';
import type { EventsTable } from '../db/schema.ts';
import { noopMetrics, type Clock, type Logger, type Metrics, type Random, type WebhookEndpoints } from '../domain/ports.ts';
import { runLoop } from '../runtime/loop.ts';
import { WakeSignal } from '../runtime/wake.ts';
import { attemptDelivery, type HttpPost } from './deliver.ts';
import { nextStep } from './retry.ts';
import { webhookHeaders } from './sign.ts';
import { checkWebhookUrl } from '../domain/webhook-url.ts';

export interface DispatcherDeps {
  db: Db;
  merchants: WebhookEndpoints;
  clock: Clock;
  random: Random;
  log: Logger;
  post: HttpPost;
  timeoutMs: number;
  retrySchedule: number[];
  concurrency: number;
  allowInsecureUrls: boolean;
  /** Webhooks may target loopback (webhooks.allowLoopback; the sandbox). */
  allowLoopback: boolean;
  /** Webhooks may target private networks (webhooks.allowPrivateNetworks). */
  allowPrivateNetworks: boolean;
  /** Fallback poll for events written by other processes (CLI settle/replay), ms. */
  pollMs?: number;
  /** Worker lease holder id written beside each delivery lease (null: not a lease holder, e.g. the CLI). */
  holder?: string;
  metrics?: Metrics;
}

/**
 * Delivers outbox events at least once. Woken in-process by every settlement; polls the
 * table as a fallback. An event is leased while in flight so two dispatchers never send it at once.
 */
export function createDispatcher(deps: DispatcherDeps) {
  const wake = new WakeSignal();
  const inFlight = new Set<string>();
  const leaseMs = deps.timeoutMs + 30_000;
  const metrics = deps.metrics ?? noopMetrics;
  /** Aborted when shutdown can wait no longer for in-flight POSTs; renewed per run. */
  let cut = new AbortController();

  /** Leases due events; only while this process holds the worker lease, when it has a holder id. */
  function claim(limit: number): Promise<EventsTable[]> {
    const now = deps.clock.now();
    return claimDueEvents(deps.db, { now, lockedUntil: now + leaseMs, holder: deps.holder ?? null, limit, exclude: inFlight, fence: deps.holder });
  }

  /** One attempt for one event, recorded whatever happens. */
  async function deliverOne(ev: EventsTable): Promise<void> {
    const attempt = ev.attempts + 1;
    let merchant;
    try {
      merchant = await deps.merchants.get(ev.merchant_id);
    } catch (err) {
      // Only a merchant that is really gone fails the event; a database hiccup (busy, I/O) is
      // not an answer: the event stays pending and is tried again shortly, with no attempt counted.
      if (!(err instanceof PaydError && err.code === 'NOT_FOUND')) return postpone(ev, err);
      await finish(ev, attempt, null, { statusCode: null, error: 'merchant no longer exists', durationMs: 0 }, { kind: 'failed', why: 'merchant no longer exists' });
      return;
    }
    if (!merchant.webhookUrl) {
      await skipEvent(deps.db, ev.id, 'merchant has no webhook_url');
      return;
    }
    let secrets: string[];
    try {
      secrets = await deps.merchants.signingSecrets(ev.merchant_id);
    } catch (err) {
      return postpone(ev, err);
    }
    let result;
    try {
      checkWebhookUrl(merchant.webhookUrl, { allowInsecure: deps.allowInsecureUrls, allowLoopback: deps.allowLoopback, allowPrivateNetworks: deps.allowPrivateNetworks });
      const headers = webhookHeaders(secrets, ev.id, Math.floor(deps.clock.now() / 1000), ev.body);
      result = await attemptDelivery(deps.post, merchant.webhookUrl, headers, ev.body, deps.timeoutMs, () => deps.clock.now(), cut.signal);
    } catch (err) {
      result = { statusCode: null, error: (err as Error).message, durationMs: 0 };
    }
    // A webhook.test is tried once: an operator is waiting for its answer, nobody wants it retried for days.
    const schedule = ev.type === 'webhook.test' ? [] : deps.retrySchedule;
    // Cut off by shutdown: recorded, and due again at once (the next leader sends it). The retry
    // schedule counts from the last replay; the attempt number keeps counting across replays.
    const step = result.cutOff ? { kind: 'retry' as const, atMs: deps.clock.now() } : nextStep(result.statusCode, attempt - (ev.retry_base ?? 0), schedule, deps.clock.now(), deps.random);
    await finish(ev, attempt, merchant.webhookUrl, result, step);
  }

  /** Leaves the event pending, to be tried again in a few seconds; nothing is recorded against the receiver. */
  async function postpone(ev: EventsTable, err: unknown): Promise<void> {
    deps.log.warn('webhook delivery postponed', { event_id: ev.id, error: String(err) });
    const retryAt = deps.clock.now() + 5_000;
    // If even this write fails, the lease (locked_until) still runs out and the event is claimed again.
    await postponeEvent(deps.db, ev.id, retryAt).catch(() => {});
  }

  async function finish(
    ev: EventsTable,
    attempt: number,
    url: string | null,
    result: { statusCode: number | null; error: string | null; durationMs: number },
    step: ReturnType<typeof nextStep>,
  ): Promise<void> {
    const now = deps.clock.now();
    const outcome =
      step.kind === 'delivered' ? { kind: 'delivered' as const, at: now } : step.kind === 'retry' ? { kind: 'retry' as const, atMs: step.atMs } : { kind: 'failed' as const, lastError: `${result.error ?? ''}; ${step.why}` };
    await finishEvent(deps.db, ev, { attempt, url: url === null ? '' : withoutQuery(url), startedAt: now - result.durationMs, durationMs: result.durationMs, statusCode: result.statusCode, error: result.error }, outcome);
    metrics.webhookAttempt(step.kind, result.durationMs / 1000);
    if (step.kind === 'delivered') metrics.webhookDelivered(Math.max(0, now - ev.created_at) / 1000);
    const fields = { event_id: ev.id, type: ev.type, attempt, status_code: result.statusCode, duration_ms: result.durationMs, error: result.error };
    if (step.kind === 'delivered') deps.log.info('webhook delivered', fields);
    else deps.log.warn(step.kind === 'retry' ? 'webhook attempt failed; will retry' : 'webhook failed for good', { ...fields, next: step.kind === 'retry' ? new Date(step.atMs).toISOString() : undefined });
  }

  async function tick(): Promise<void> {
    // Drain everything due now, keeping at most `concurrency` deliveries in flight.
    for (;;) {
      const batch = await claim(deps.concurrency - inFlight.size);
      if (batch.length === 0) return;
      for (const ev of batch) {
        inFlight.add(ev.id);
        void deliverOne(ev)
          .catch((err) => deps.log.error('webhook delivery crashed', { event_id: ev.id, error: String(err) }))
          .finally(() => {
            inFlight.delete(ev.id);
            wake.wake();
          });
      }
      if (inFlight.size >= deps.concurrency) return;
    }
  }

  return {
    wake: () => wake.wake(),
    /**
     * Runs until aborted; then lets in-flight deliveries finish until `opts.drainUntil()` (epoch ms),
     * cuts off the rest and records them for retry before returning.
     */
    async run(signal: AbortSignal, opts: { drainUntil?: () => number } = {}): Promise<void> {
      await runLoop({ name: 'webhook dispatcher', intervalMs: deps.pollMs ?? 250, tick, signal, log: deps.log, random: deps.random, wake, backoff: { baseMs: 500, maxMs: 10_000 } });
      // In-flight POSTs may finish until `drainUntil` (shutdown's share of its deadline; else one
      // timeout). Then they are cut off and recorded as attempts to retry, never lost.
      const until = opts.drainUntil?.() ?? Date.now() + deps.timeoutMs + 1000;
      while (inFlight.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      if (inFlight.size > 0) {
        deps.log.warn('cutting off webhook deliveries still in flight; they will be retried', { in_flight: inFlight.size });
        cut.abort();
        const recorded = Date.now() + 2000;
        while (inFlight.size > 0 && Date.now() < recorded) await new Promise((r) => setTimeout(r, 20));
      }
      cut = new AbortController();
    },
    /**
     * Frees the delivery leases of a worker-lease holder known to be dead (its process is
     * gone), so its events are sent now instead of after their lease runs out. Never called
     * for a holder that may be alive: its in-flight sends would go out twice.
     */
    releaseLeasesOf: (holder: string): Promise<number> => releaseLeasesOf(deps.db, holder),
    /** Sends one event now in this process (webhooks test); returns the attempt result. */
    async deliverNow(eventId: string): Promise<void> {
      const now = deps.clock.now();
      const ev = await claimEvent(deps.db, eventId, { now, lockedUntil: now + leaseMs, holder: deps.holder ?? null });
      if (ev) await deliverOne(ev);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;

/** The URL as kept in attempt rows: a query string (it may carry a token) and a fragment are dropped. */
export function withoutQuery(url: string): string {
  try {
    const u = new URL(url);
    const dropped = u.search !== '';
    u.search = '';
    u.hash = '';
    return dropped ? `${u.toString()}?…` : u.toString();
  } catch {
    return url.split(/[?#]/)[0];
  }
}
