// USDT on Polygon through the real app and the real EVM source, against a real node (anvil) behind
// a loopback proxy that counts every JSON-RPC request (test/fakes/evm-proxy.ts): what one chain
// costs its provider per poll idle, with 1 and with 1,000 open intents while the chain makes a
// block per poll, scaled to an hour at each chain's default pollSeconds; then the time from a
// payment's block becoming final to its signed webhook at a local receiver.
import { EVM_CHAINS } from '../../src/methods/evm/chains.ts';
import { MERCHANT, startAnvil, type Anvil } from '../../test/helpers/anvil.ts';
import { startEvmProxy, type EvmProxy } from '../../test/fakes/evm-proxy.ts';
import { startReceiver } from '../../test/helpers/receiver.ts';
import { latencyRows, MANY, POLL_S, sleep, startMethodPayd } from '../lib/methods-common.ts';
import { round, type BenchContext, type Row, type SectionResult } from '../lib/report.ts';

const POLYGON_CHAIN_ID = 137;
/** Polls counted per window (each a new block). */
const WINDOW_POLLS = 20;
/** Payments timed from finality to the webhook: each waits for its blocks, so fewer than the other chains' samples. */
const PAYMENTS = 8;

/** JSON-RPC requests per poll over WINDOW_POLLS polls, a block mined every poll (a chain that grows). */
async function perPoll(node: Anvil, proxy: EvmProxy): Promise<{ perPoll: number; requests: number; polls: number; methods: string }> {
  const from = proxy.calls.length;
  for (let i = 0; i < WINDOW_POLLS; i++) {
    await node.mine(1);
    await sleep(POLL_S * 1000);
  }
  const calls = proxy.calls.slice(from);
  const byMethod = new Map<string, number>();
  for (const c of calls) byMethod.set(c.method, (byMethod.get(c.method) ?? 0) + 1);
  // Each poll that reads the chain asks for its final block once: that many polls read it.
  const polls = calls.filter((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'finalized').length;
  return { perPoll: polls === 0 ? 0 : calls.length / polls, requests: calls.length, polls, methods: [...byMethod].map(([k, v]) => `${k} ${v}`).join(', ') };
}

export async function evmSection(ctx: BenchContext): Promise<SectionResult> {
  const node = await startAnvil(POLYGON_CHAIN_ID);
  const proxy = await startEvmProxy(node.url);
  const receiver = await startReceiver();
  try {
    const token = await node.deployToken('USDT', 6);
    const p = await startMethodPayd({ USDT_POLYGON: { address: MERCHANT, contract: token, rpcUrl: proxy.url, pollSeconds: POLL_S, backfillBlocks: 0 } });
    try {
      const merchant = (await p.app.merchants.get((await p.merchant('Bench shop', receiver.url)).clientId))!;
      let n = 0;
      const open = async (count: number) => {
        for (let i = 0; i < count; i++) await p.app.intents.create(merchant, { amount: 10 + (n++ % 500), currency: 'USDT_POLYGON', order_id: `bench-${n}` });
      };
      ctx.progress(`evm: requests per poll idle, with 1 and ${MANY} open intents (${WINDOW_POLLS} polls each, pollSeconds ${POLL_S})`);
      const idle = await perPoll(node, proxy);
      await open(1);
      await sleep(POLL_S * 3000); // the first start: chain id, decimals, the checkpoint
      const one = await perPoll(node, proxy);
      const t0 = performance.now();
      await open(MANY - 1);
      const createMs = performance.now() - t0;
      await perPoll(node, proxy); // settle in
      const many = await perPoll(node, proxy);

      // Finality → webhook: a payment, then the blocks that make its block final (finalized = newest − 2).
      ctx.progress(`evm: block final → webhook (${PAYMENTS} payments)`);
      const latencies: number[] = [];
      for (let i = 0; i < PAYMENTS; i++) {
        const created = await p.app.intents.create(merchant, { amount: 600 + i, currency: 'USDT_POLYGON', order_id: `lat-${i}` });
        const due = BigInt(/uint256=(\d+)$/.exec(created.payment_uri!)![1]!);
        const before = receiver.received.length;
        await node.transfer(token, MERCHANT, due);
        await sleep(Math.random() * POLL_S * 1000); // a random phase against the poll cycle
        await node.mine(2);
        const finalAt = Date.now();
        await receiver.waitFor(before + 1, 60_000);
        latencies.push(receiver.received[before]!.at - finalAt);
      }

      const perHour = (perPollCount: number, seconds: number) => Math.round((perPollCount * 3600) / seconds);
      const rows: Row[] = [
        { metric: 'JSON-RPC requests/poll, idle (no open intent)', value: round(idle.perPoll), note: `${idle.requests} requests over ${WINDOW_POLLS} polls' time` },
        { metric: 'JSON-RPC requests/poll, 1 open intent', value: round(one.perPoll), note: `${one.requests} over ${one.polls} polls (${one.methods})` },
        { metric: `JSON-RPC requests/poll, ${MANY} open intents`, value: round(many.perPoll), note: `${many.requests} over ${many.polls} polls (${many.methods})` },
        { metric: `requests/poll ${MANY} / 1`, value: round(many.perPoll / one.perPoll), unit: 'x', note: 'goal 1 (one eth_getLogs covers every open intent)' },
        { metric: 'idle chain costs nothing', value: idle.requests === 0 },
        ...EVM_CHAINS.map((chain) => {
          const seconds = Math.max(5, chain.blockSeconds);
          return { metric: `requests/h at the default poll, ${chain.network}`, value: perHour(many.perPoll, seconds), note: `poll ${seconds} s; 1 open intent ${perHour(one.perPoll, seconds)}/h, idle ${perHour(idle.perPoll, seconds)}/h` };
        }),
        ...latencyRows('block final → webhook', latencies, { ms: POLL_S * 1000, name: 'poll interval' }),
      ];
      return {
        title: 'USDT on Polygon (anvil): JSON-RPC requests per poll and block final → webhook',
        rows,
        notes: [
          `real app + real EVM source against anvil (chain id ${POLYGON_CHAIN_ID}, finalized = newest − 2) behind a counting proxy on 127.0.0.1; one block mined per ${POLL_S} s poll`,
          `requests/h: requests per poll × polls per hour at each chain's default pollSeconds (the same for every chain: one scan per chain)`,
          `latency: from the second block on top of the payment's (its block final) to the signed webhook at the receiver; ${MANY - 1} intents created in ${round(createMs / 1000, 1)} s`,
        ],
      };
    } finally {
      await p.close();
    }
  } finally {
    await receiver.close();
    await proxy.close();
    await node.stop();
  }
}
