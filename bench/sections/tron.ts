// USDT on TRON through the real app and the real TronGrid source, against the fake TronGrid
// on loopback: how long a visible transfer takes to settle, in units of the poll interval,
// and how many TronGrid requests one polling cycle costs with 1 vs 1,000 open intents.
import { CUSTOMER, MERCHANT, startFakeTronGrid, type FakeTronGrid } from '../../test/fakes/trongrid.ts';
import { BACKGROUND, COUNT_POLL_S, CYCLES, latencyRows, MANY, POLL_S, SAMPLES, sleep, startCountedPayd, startMethodPayd, toMinor, untilSettled } from '../lib/methods-common.ts';
import { round, type BenchContext, type Row, type SectionResult } from '../lib/report.ts';

const tron = (apiUrl: string, pollSeconds: number) => ({ USDT_TRC20: { address: MERCHANT, apiUrl, pollSeconds } });

async function settleLatency(grid: FakeTronGrid, ctx: BenchContext): Promise<number[]> {
  const p = await startMethodPayd(tron(grid.url, POLL_S));
  try {
    const merchant = await p.app.merchants.get((await p.merchant()).clientId);
    const sample: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const intent = await p.app.intents.create(merchant, { amount: 20 + i, currency: 'USDT_TRC20', order_id: `tron-lat-${i}` });
      await sleep(Math.random() * POLL_S * 1000); // a random phase against the poll cycle
      const t0 = performance.now();
      grid.add({ to: MERCHANT, from: CUSTOMER, value: toMinor(intent.pay_amount.text, 6).toString(), confirmed: true, block_timestamp: Date.now() });
      sample.push(await untilSettled(p, intent.intent_id, t0, 10 * POLL_S * 1000 + 2000));
    }
    ctx.progress(`tron: ${SAMPLES} settlements measured`);
    return sample;
  } finally {
    await p.close();
  }
}

async function requestsPerCycle(grid: FakeTronGrid, open: number): Promise<{ perCycle: number; requests: number; cycles: number; createMs: number }> {
  const run = await startCountedPayd(tron(grid.url, COUNT_POLL_S), () => grid.requests.length);
  try {
    const merchant = await run.p.app.merchants.get((await run.p.merchant()).clientId);
    const t0 = performance.now();
    for (let i = 0; i < open; i++) await run.p.app.intents.create(merchant, { amount: 100 + i, currency: 'USDT_TRC20', order_id: `tron-open-${i}` });
    const createMs = performance.now() - t0;
    await run.requestsPerCycle(2, 10_000); // past the first-start catch-up
    return { ...(await run.requestsPerCycle(CYCLES, 15_000)), createMs };
  } finally {
    await run.close();
  }
}

export async function tronSection(ctx: BenchContext): Promise<SectionResult> {
  const grid = await startFakeTronGrid();
  try {
    // Unrelated history on the address, so every listing returns a page of data.
    for (let i = 0; i < BACKGROUND; i++) grid.add({ to: MERCHANT, from: CUSTOMER, value: String(1_000_000 + i), confirmed: true, block_timestamp: Date.now() - 3_600_000 + i * 1000 });
    ctx.progress(`tron: transfer → settled at pollSeconds ${POLL_S} (${SAMPLES} samples)`);
    const latency = await settleLatency(grid, ctx);
    ctx.progress(`tron: TronGrid requests per cycle with 1 and ${MANY} open intents`);
    const one = await requestsPerCycle(grid, 1);
    const many = await requestsPerCycle(grid, MANY);
    const rows: Row[] = [
      ...latencyRows('transfer visible → settled', latency, { ms: POLL_S * 1000, name: 'poll interval' }),
      { metric: 'requests/cycle, 1 open intent', value: round(one.perCycle), note: `${one.requests} requests over ${one.cycles} cycles` },
      { metric: `requests/cycle, ${MANY} open intents`, value: round(many.perCycle), note: `${many.requests} requests over ${many.cycles} cycles` },
      { metric: `requests/cycle ${MANY} / 1`, value: round(many.perCycle / one.perCycle), unit: 'x', note: 'goal 1 (cost independent of open intents)' },
      { metric: 'requests/cycle equal', value: many.perCycle === one.perCycle },
    ];
    return {
      title: 'USDT_TRC20: TronGrid → settled latency and polling cost',
      rows,
      notes: [
        `real app + real TronGrid source against the fake TronGrid on 127.0.0.1 (${BACKGROUND} unrelated transfers listed each cycle)`,
        `latency: from the transfer appearing upstream (confirmed) to status settled, polled every 10 ms; a random phase against the ${POLL_S} s poll, so expect a median near 0.5x and a p95 near 1x`,
        `requests/cycle: cycles counted at the source's checkpoint load, pollSeconds ${COUNT_POLL_S}; ${MANY} intents created in ${round(many.createMs / 1000, 1)} s`,
      ],
    };
  } finally {
    await grid.close();
  }
}
