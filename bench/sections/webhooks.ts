// How fast a settlement becomes a webhook at the merchant, and how many
// deliveries per second the dispatcher sustains. payd runs in this process (so the
// bench can call app.ledger.ingest); the receiver runs in a child process.
import type { ReceivedPayment } from '../../src/domain/payment.ts';
import { startChild, type Child } from '../lib/child.ts';
import { benchAmount, startBenchPayd, UPI_VPA, type BenchPayd } from '../lib/harness.ts';
import { percentile, round, type BenchContext, type SectionResult } from '../lib/report.ts';
import type { Arrival, ReceiverData } from '../lib/servers/receiver.ts';

const LATENCY_SAMPLES = 200;
const BURST = 1000;
const WAIT_MS = 60_000;

const nowMs = () => performance.timeOrigin + performance.now();

/** Arrivals by order_id, with waiters for ones not yet seen. */
function arrivals() {
  const seen = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  let duplicates = 0;
  return {
    duplicates: () => duplicates,
    count: () => seen.size,
    on(a: Arrival) {
      if (seen.has(a.orderId)) duplicates++;
      else seen.set(a.orderId, a.at);
      waiting.get(a.orderId)?.(a.at);
      waiting.delete(a.orderId);
    },
    at: (orderId: string) => seen.get(orderId),
    wait(orderId: string, ms = WAIT_MS): Promise<number> {
      const at = seen.get(orderId);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for ${orderId} within ${ms} ms`)), ms);
        waiting.set(orderId, (t) => {
          clearTimeout(timer);
          resolve(t);
        });
      });
    },
  };
}

let utr = 500_000_000_000;
const upi = (amountMinor: bigint): ReceivedPayment => ({
  method: 'UPI',
  receiver: UPI_VPA,
  amountMinor,
  txRef: String(utr++),
  occurredAt: Date.now(),
  observedAt: Date.now(),
  source: 'imap',
});

/** Creates an intent and returns what a matching payment must look like. */
async function openIntent(p: BenchPayd, clientId: string, orderId: string, n: number): Promise<bigint> {
  const merchant = await p.app.merchants.get(clientId);
  const created = await p.app.intents.create(merchant, { amount: benchAmount(n, 50_000), currency: 'UPI', order_id: orderId });
  const row = await p.app.intents.find(created.intent_id);
  return row!.payAmountMinor;
}

export async function webhooksSection(ctx: BenchContext): Promise<SectionResult> {
  const seen = arrivals();
  let receiver: Child<ReceiverData> | null = null;
  let payd: BenchPayd | null = null;
  try {
    receiver = await startChild<ReceiverData>('receiver', [], { onEvent: (a: Arrival) => seen.on(a) });
    payd = await startBenchPayd({ http: false, workers: true });
    const { clientId } = await payd.merchant(receiver.data.url);
    let n = 0;

    ctx.progress(`webhooks: latency over ${LATENCY_SAMPLES} settlements, one at a time`);
    const latencies: number[] = [];
    const ingestMs: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const order = `lat-${i}`;
      const amount = await openIntent(payd, clientId, order, n++);
      const t0 = nowMs();
      const outcome = await payd.app.ledger.ingest(upi(amount));
      ingestMs.push(nowMs() - t0);
      if (outcome.kind !== 'settled') throw new Error(`settlement ${order} came out ${outcome.kind}`);
      latencies.push((await seen.wait(order)) - t0);
    }

    ctx.progress(`webhooks: ${BURST} settlements enqueued back to back`);
    const orders: Array<[string, bigint]> = [];
    for (let i = 0; i < BURST; i++) {
      const order = `burst-${i}`;
      orders.push([order, await openIntent(payd, clientId, order, n++)]);
    }
    const t0 = nowMs();
    for (const [, amount] of orders) await payd.app.ledger.ingest(upi(amount));
    const enqueued = nowMs();
    await Promise.all(orders.map(([order]) => seen.wait(order)));
    const last = Math.max(...orders.map(([order]) => seen.at(order)!));
    const drainS = (last - t0) / 1000;

    return {
      title: 'settlement → webhook at a local receiver',
      rows: [
        { metric: 'latency p50', value: round(percentile(latencies, 50)), unit: 'ms', note: `ingest → arrival, ${LATENCY_SAMPLES} settlements one at a time` },
        { metric: 'latency p99', value: round(percentile(latencies, 99)), unit: 'ms', note: `max ${round(Math.max(...latencies))} ms` },
        { metric: 'ingest (settle tx) p50', value: round(percentile(ingestMs, 50)), unit: 'ms', note: `p99 ${round(percentile(ingestMs, 99))} ms; part of the latency above` },
        { metric: 'burst deliveries/s', value: round(BURST / drainS, 0), unit: '/s', note: `${BURST} settlements: first ingest → last arrival ${round(drainS)} s` },
        { metric: 'burst ingests/s', value: round(BURST / ((enqueued - t0) / 1000), 0), unit: '/s', note: 'settlements recorded while the dispatcher delivers' },
        { metric: 'burst delivery after enqueue', value: round(Math.max(0, last - enqueued)), unit: 'ms', note: 'last arrival after the last ingest returned' },
        { metric: 'duplicate deliveries', value: seen.duplicates() },
      ],
      notes: [
        `payd in-process (real SQLite file, webhook concurrency ${payd.app.config.webhooks.concurrency}, silent logger); receiver in a child process answering 200 at once`,
      ],
    };
  } finally {
    await payd?.close();
    await receiver?.close();
  }
}
