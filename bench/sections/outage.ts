// Catch-up after an upstream outage: payd comes back to an hour of USDT transfers it has not
// seen (3,600, one a second, to the merchant's address) and works through them, through the real
// app, the real TRON source and the SQLite ledger, against fake TronGrids on loopback. Measured:
// from start until every transfer is recorded and /readyz says the source is caught up; with one
// keyed endpoint, with two of which one is down the whole time, and with TronGrid's anonymous
// pace (1 request per second per method).
import { CUSTOMER, MERCHANT, startFakeTronGrid, type FakeTronGrid } from '../../test/fakes/trongrid.ts';
import { sleep, startMethodPayd } from '../lib/methods-common.ts';
import { round, type BenchContext, type Row, type SectionResult } from '../lib/report.ts';

const HOUR_S = 3600;
const POLL_S = 0.5;

async function catchUp(endpoints: { url: string; apiKey?: string }[], ctx: BenchContext, what: string): Promise<{ seconds: number; recorded: number }> {
  const t0 = performance.now();
  const p = await startMethodPayd({ USDT_TRC20: { address: MERCHANT, pollSeconds: POLL_S, endpoints } });
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      // A reused connection the server already closed is no answer: ask again.
      const ready = (await fetch(p.url + '/readyz', { headers: { connection: 'close' } }).then((r) => r.json(), () => ({}))) as { sources?: Record<string, { state: string }> };
      if (ready.sources?.USDT_TRC20?.state === 'ok') break;
      if (Date.now() > deadline) throw new Error(`outage: ${what} not caught up after 600 s`);
      await sleep(20);
    }
    const seconds = (performance.now() - t0) / 1000;
    const recorded = (await p.app.payments.list({ limit: HOUR_S * 2 })).length;
    ctx.progress(`outage: ${what}: ${recorded} transfers in ${seconds.toFixed(1)} s`);
    return { seconds, recorded };
  } finally {
    await p.close();
  }
}

export async function outageSection(ctx: BenchContext): Promise<SectionResult> {
  const a = await startFakeTronGrid();
  const b = await startFakeTronGrid();
  const anon = await startFakeTronGrid();
  b.transfers = anon.transfers = a.transfers;
  const fakes: FakeTronGrid[] = [a, b, anon];
  try {
    // The hour payd did not see: one transfer a second, all confirmed, within the first start's 24 h lookback.
    const start = Date.now() - HOUR_S * 1000 - 60_000;
    for (let i = 0; i < HOUR_S; i++) a.add({ to: MERCHANT, from: CUSTOMER, value: String(1_000_000 + i), confirmed: true, block_timestamp: start + i * 1000 });
    ctx.progress(`outage: catching up ${HOUR_S} transfers (one hour at one a second)`);
    const keyed = await catchUp([{ url: a.url, apiKey: 'bench-key-a' }], ctx, 'one keyed endpoint');
    // A down for the whole catch-up (every request 500): B does the work.
    a.faultsHitHead = true;
    a.faults.push({ status: 500, times: 1_000_000 });
    const failover = await catchUp([{ url: a.url, apiKey: 'bench-key-a' }, { url: b.url, apiKey: 'bench-key-b' }], ctx, 'two endpoints, one down');
    a.faults.length = 0;
    const anonymous = await catchUp([{ url: anon.url }], ctx, 'anonymous TronGrid pace');
    const pages = Math.ceil(HOUR_S / 200);
    const rows: Row[] = [
      { metric: 'transfers to catch up', value: HOUR_S, note: 'one hour at one transfer a second' },
      { metric: 'catch-up, one keyed endpoint', value: round(keyed.seconds, 1), unit: 's', note: `${keyed.recorded} recorded` },
      { metric: 'catch-up, two endpoints, one down', value: round(failover.seconds, 1), unit: 's', note: `${failover.recorded} recorded` },
      { metric: 'catch-up, anonymous (1 req/s)', value: round(anonymous.seconds, 1), unit: 's', note: `${anonymous.recorded} recorded; ${pages} pages of 200` },
      { metric: 'every transfer recorded', value: [keyed, failover, anonymous].every((r) => r.recorded === HOUR_S) },
    ];
    return {
      title: 'USDT_TRC20: catch-up after a 1-hour outage',
      rows,
      notes: [
        'from payd start (checkpoint an hour back, as after an hour of outage) until /readyz reports the source caught up; every transfer recorded (unmatched) in SQLite',
        `pollSeconds ${POLL_S}; TronGrid pages of 200; at most 50 pages per cycle, so one cycle covers the hour`,
      ],
    };
  } finally {
    await Promise.all(fakes.map((f) => f.close()));
  }
}
