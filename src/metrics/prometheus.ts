import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Method } from '../domain/methods.ts';
import type { Metrics } from '../domain/ports.ts';

/** What the registry reads at scrape time instead of being told. */
export interface ScrapeSources {
  /** Each running source's health, keyed by method. */
  sources(): Array<{ key: string; up: boolean; lastOkAt: number | undefined; lagMs: number | undefined }>;
  /** 1 when this process holds the worker lease. */
  leader(): boolean;
  now(): number;
  /** Methods with a silence watch (UPI's mailbox): the newest verified alert per configured account. */
  alerts?: () => Promise<Array<{ method: string; bank: string; account: string; lastAlertAt: number | null }>>;
  /** Fiat pricing: each configured pair and its sources (pricing/book.ts status()). */
  rates?: () => Promise<Array<{ pair: string; rate: string | null; sources: Array<{ source: string; ageSeconds: number | null; failures: number; outlier: boolean }> }>>;
}

/**
 * The Prometheus side of the Metrics port: one registry per app (never prom-client's
 * global one), so two apps in one process (tests) never share counters. The only module
 * that imports prom-client.
 */
export function createPrometheusMetrics(scrape: ScrapeSources): Metrics & { registry: Registry; collectProcessMetrics(): void } {
  const registry = new Registry();
  const registers = [registry];
  const byMethod = (name: string, help: string) => new Counter({ name, help, labelNames: ['method'] as const, registers });

  const created = byMethod('payd_intents_created_total', 'Payment intents created, by method.');
  const settled = byMethod('payd_intents_settled_total', 'Payment intents settled, by method.');
  const expired = byMethod('payd_intents_expired_total', 'Payment intents expired unpaid, by method.');
  const unmatched = new Counter({ name: 'payd_payments_unmatched_total', help: 'Payments seen that settled nothing, by method and reason.', labelNames: ['method', 'reason'] as const, registers });
  const rejected = new Counter({ name: 'payd_payments_rejected_total', help: 'Observations rejected (forged, unparseable, …), by method and reason.', labelNames: ['method', 'reason'] as const, registers });
  const attempts = new Counter({ name: 'payd_webhook_attempts_total', help: 'Webhook delivery attempts, by result (delivered, retry, failed).', labelNames: ['result'] as const, registers });
  const attemptSeconds = new Histogram({
    name: 'payd_webhook_attempt_duration_seconds',
    help: 'Duration of one webhook POST.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const latency = new Histogram({
    name: 'payd_webhook_delivery_latency_seconds',
    help: 'From an event being written to its successful delivery (includes retries).',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400],
    registers,
  });
  const pool = new Gauge({
    name: 'payd_amount_pool_use_ratio',
    help: 'Share of the unique-amount window the latest create had to search (1 = the next identical amount may be refused), by method and receiver.',
    labelNames: ['method', 'receiver'] as const,
    registers,
  });
  const upstreamRequests = new Counter({
    name: 'payd_upstream_requests_total',
    help: 'Requests to chain upstreams (TronGrid-compatible APIs, Solana RPC), by endpoint (URL without key or query) and outcome (ok, throttled, error).',
    labelNames: ['endpoint', 'outcome'] as const,
    registers,
  });
  const upstreamThrottled = new Counter({
    name: 'payd_upstream_throttled_seconds_total',
    help: 'Seconds chain upstreams asked to be left alone (rate limits: 429, TronGrid 403/503, Solana -32429), by endpoint.',
    labelNames: ['endpoint'] as const,
    registers,
  });
  new Gauge({
    name: 'payd_source_up',
    help: '1 when the payment source is ready (/readyz: ok or failing, a cycle completed since it started and recently enough), by method. Absent on a standby.',
    labelNames: ['method'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of scrape.sources()) this.set({ method: s.key }, s.up ? 1 : 0);
    },
  });
  new Gauge({
    name: 'payd_source_last_success_timestamp_seconds',
    help: 'Unix time of the source\'s last completed cycle, by method.',
    labelNames: ['method'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of scrape.sources()) if (s.lastOkAt !== undefined) this.set({ method: s.key }, s.lastOkAt / 1000);
    },
  });
  new Gauge({
    name: 'payd_source_lag_seconds',
    help: 'How far the source\'s processed position is behind the newest head any of its endpoints reports (TRON solidified block, Solana slot at the commitment), or for UPI since the last completed mailbox sync, seconds, by method.',
    labelNames: ['method'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of scrape.sources()) if (s.lagMs !== undefined) this.set({ method: s.key }, s.lagMs / 1000);
    },
  });
  const alerts = scrape.alerts;
  if (alerts) {
    new Gauge({
      name: 'payd_upi_last_alert_age_seconds',
      help: 'Seconds since the newest verified (DKIM-signed, parsed as a credit) bank alert for each configured account; absent while none was ever recorded.',
      labelNames: ['bank', 'account'] as const,
      registers,
      async collect() {
        this.reset();
        const now = scrape.now();
        for (const a of await alerts()) if (a.lastAlertAt !== null) this.set({ bank: a.bank, account: a.account }, Math.max(0, now - a.lastAlertAt) / 1000);
      },
    });
  }
  const rates = scrape.rates;
  if (rates) {
    // One read of the rate cache per scrape feeds all three.
    let reading: ReturnType<typeof rates> | null = null;
    const read = () => (reading ??= rates().finally(() => setImmediate(() => (reading = null))));
    new Gauge({
      name: 'payd_rate_available',
      help: 'Fiat pricing: 1 when the pair has a fresh, trusted rate (creates priced in it work), by pair.',
      labelNames: ['pair'] as const,
      registers,
      async collect() {
        this.reset();
        for (const p of await read()) this.set({ pair: p.pair }, p.rate === null ? 0 : 1);
      },
    });
    new Gauge({
      name: 'payd_rate_age_seconds',
      help: 'Fiat pricing: seconds since the source last gave a usable rate for the pair; absent while it never did.',
      labelNames: ['pair', 'source'] as const,
      registers,
      async collect() {
        this.reset();
        for (const p of await read()) for (const s of p.sources) if (s.ageSeconds !== null) this.set({ pair: p.pair, source: s.source }, s.ageSeconds);
      },
    });
    new Gauge({
      name: 'payd_rate_source_failures',
      help: 'Fiat pricing: failed fetches in a row (0 after a success), by pair and source.',
      labelNames: ['pair', 'source'] as const,
      registers,
      async collect() {
        this.reset();
        for (const p of await read()) for (const s of p.sources) this.set({ pair: p.pair, source: s.source }, s.failures);
      },
    });
    new Gauge({
      name: 'payd_rate_outlier',
      help: 'Fiat pricing: 1 when the source\'s latest rate is ignored: too far from the pair\'s median (pricing.maxSpreadPercent), or a jump from the last accepted rate no other source confirmed (pricing.maxChangePercent).',
      labelNames: ['pair', 'source'] as const,
      registers,
      async collect() {
        this.reset();
        for (const p of await read()) for (const s of p.sources) this.set({ pair: p.pair, source: s.source }, s.outlier ? 1 : 0);
      },
    });
  }
  new Gauge({
    name: 'payd_worker_leader',
    help: '1 when this process holds the worker lease (runs sources, webhook delivery and expiry).',
    registers,
    collect() {
      this.set(scrape.leader() ? 1 : 0);
    },
  });

  let processMetrics = false;
  return {
    registry,
    /** prom-client's process metrics (CPU, memory, event loop, GC); only in a serving daemon. */
    collectProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry });
    },
    intentCreated: (method: Method) => created.inc({ method }),
    intentSettled: (method: Method) => settled.inc({ method }),
    intentExpired: (method: Method) => expired.inc({ method }),
    paymentUnmatched: (method: Method, reason: string) => unmatched.inc({ method, reason }),
    paymentRejected: (method: Method, reason: string) => rejected.inc({ method, reason }),
    webhookAttempt: (result, seconds) => {
      attempts.inc({ result });
      attemptSeconds.observe(seconds);
    },
    webhookDelivered: (seconds) => latency.observe(seconds),
    amountPoolUse: (method: Method, receiver: string, ratio: number) => pool.set({ method, receiver }, ratio),
    upstreamRequest: (endpoint, outcome) => upstreamRequests.inc({ endpoint, outcome }),
    upstreamThrottled: (endpoint, seconds) => upstreamThrottled.inc({ endpoint }, seconds),
  };
}

export type PrometheusMetrics = ReturnType<typeof createPrometheusMetrics>;
