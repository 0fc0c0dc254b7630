// SOL through the real app and the real Solana source, against the fake JSON-RPC on loopback:
// how long a landed transaction takes to settle, in units of the poll interval, and how many
// RPC requests one polling cycle costs with 1 vs 1,000 open intents.
import { startFakeSolanaRpc, type FakeSolanaRpc } from '../../test/fakes/solana-rpc.ts';
import { newKey, solTransfer } from '../../test/fakes/solana-tx.ts';
import { BACKGROUND, COUNT_POLL_S, CYCLES, latencyRows, MANY, POLL_S, SAMPLES, sleep, startCountedPayd, startMethodPayd, toMinor, untilSettled } from '../lib/methods-common.ts';
import { round, type BenchContext, type Row, type SectionResult } from '../lib/report.ts';

const sol = (wallet: string, rpcUrl: string, pollSeconds: number) => ({ SOL: { wallet, rpcUrl, pollSeconds } });

async function settleLatency(rpc: FakeSolanaRpc, wallet: string, ctx: BenchContext): Promise<number[]> {
  const p = await startMethodPayd(sol(wallet, rpc.url, POLL_S));
  try {
    const merchant = await p.app.merchants.get((await p.merchant()).clientId);
    const payer = newKey();
    const sample: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const intent = await p.app.intents.create(merchant, { amount: (10 + i) / 100, currency: 'SOL', order_id: `sol-lat-${i}` });
      await sleep(Math.random() * POLL_S * 1000); // a random phase against the poll cycle
      const t0 = performance.now();
      rpc.add(solTransfer({ from: payer, to: wallet, lamports: toMinor(intent.pay_amount.text, 9), reference: intent.reference }));
      sample.push(await untilSettled(p, intent.intent_id, t0, 10 * POLL_S * 1000 + 2000));
    }
    ctx.progress(`solana: ${SAMPLES} settlements measured`);
    return sample;
  } finally {
    await p.close();
  }
}

async function requestsPerCycle(rpc: FakeSolanaRpc, wallet: string, open: number) {
  const run = await startCountedPayd(sol(wallet, rpc.url, COUNT_POLL_S), () => rpc.requests.length);
  try {
    const merchant = await run.p.app.merchants.get((await run.p.merchant()).clientId);
    const t0 = performance.now();
    for (let i = 0; i < open; i++) await run.p.app.intents.create(merchant, { amount: (10 + i) / 1000, currency: 'SOL', order_id: `sol-open-${i}` });
    const createMs = performance.now() - t0;
    await run.requestsPerCycle(2, 10_000); // past the first-start listing
    const counted = await run.requestsPerCycle(CYCLES, 15_000);
    const methods = new Set(rpc.requests.slice(-counted.requests).map((r) => r.method));
    return { ...counted, createMs, methods: [...methods].join(', ') };
  } finally {
    await run.close();
  }
}

export async function solanaSection(ctx: BenchContext): Promise<SectionResult> {
  const rpc = await startFakeSolanaRpc();
  try {
    const wallet = newKey();
    // Unrelated history on the wallet (no reference: unmatched), so the first start has a page to read.
    const stranger = newKey();
    for (let i = 0; i < BACKGROUND; i++) rpc.add(solTransfer({ from: stranger, to: wallet, lamports: 1_000_000 + i, blockTime: Math.floor(Date.now() / 1000) - 3600 + i }));
    ctx.progress(`solana: transaction → settled at pollSeconds ${POLL_S} (${SAMPLES} samples)`);
    const latency = await settleLatency(rpc, wallet, ctx);
    ctx.progress(`solana: RPC requests per cycle with 1 and ${MANY} open intents`);
    const one = await requestsPerCycle(rpc, wallet, 1);
    const many = await requestsPerCycle(rpc, wallet, MANY);
    const rows: Row[] = [
      ...latencyRows('tx visible → settled', latency, { ms: POLL_S * 1000, name: 'poll interval' }),
      { metric: 'RPC requests/cycle, 1 open intent', value: round(one.perCycle), note: `${one.requests} requests over ${one.cycles} cycles (${one.methods})` },
      { metric: `RPC requests/cycle, ${MANY} open intents`, value: round(many.perCycle), note: `${many.requests} requests over ${many.cycles} cycles (${many.methods})` },
      { metric: `requests/cycle ${MANY} / 1`, value: round(many.perCycle / one.perCycle), unit: 'x', note: 'goal 1 (cost independent of open intents)' },
      { metric: 'requests/cycle equal', value: many.perCycle === one.perCycle },
    ];
    return {
      title: 'SOL: RPC → settled latency and polling cost',
      rows,
      notes: [
        `real app + real Solana source (commitment finalized) against the fake JSON-RPC on 127.0.0.1; ${BACKGROUND} unrelated transactions in the wallet's history`,
        `latency: from the transaction landing (finalized) to status settled, polled every 10 ms; a random phase against the ${POLL_S} s poll, so expect a median near 0.5x and a p95 near 1x`,
        `requests/cycle: cycles counted at the source's checkpoint load, pollSeconds ${COUNT_POLL_S}, no new transactions meanwhile; ${MANY} intents created in ${round(many.createMs / 1000, 1)} s`,
      ],
    };
  } finally {
    await rpc.close();
  }
}
