// Ad-hoc (not part of npm run bench): what one EVM chain costs its provider and how soon a final
// payment reaches the merchant, against a real node (anvil) behind a loopback proxy that counts
// every JSON-RPC request (test/fakes/evm-proxy.ts). Requests per poll idle, with 1 and with
// 1,000 open intents while the chain makes a block per poll, scaled to an hour at each chain's
// default pollSeconds; then the time from a payment's block becoming final to its webhook.
// Usage: node --import tsx bench/probes/evm-cost.ts [pollSeconds=0.5] [payments=5]
import { EVM_CHAINS } from '../../src/methods/evm/chains.ts';
import { MERCHANT, startAnvil } from '../../test/helpers/anvil.ts';
import { startEvmProxy } from '../../test/fakes/evm-proxy.ts';
import { startPayd } from '../../test/helpers/payd.ts';
import { startReceiver } from '../../test/helpers/receiver.ts';

const poll = Number(process.argv[2] ?? 0.5);
const payments = Number(process.argv[3] ?? 5);
const WINDOW_POLLS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const node = await startAnvil(137);
const token = await node.deployToken('USDT', 6);
const proxy = await startEvmProxy(node.url);
const receiver = await startReceiver();
const p = await startPayd({
  workers: true,
  sources: 'configured',
  config: { methods: { UPI: undefined, SOL: undefined, USDT_SOL: undefined, USDT_TRC20: undefined, USDT_POLYGON: { address: MERCHANT, contract: token, rpcUrl: proxy.url, pollSeconds: poll, backfillBlocks: 0 } } },
});
const m = await p.merchant('Bench shop', receiver.url);
const merchant = (await p.app.merchants.get(m.clientId))!;

/** Requests per poll over WINDOW_POLLS polls, a block mined every poll (a chain that grows). */
async function perPoll(mine: boolean): Promise<{ perPoll: number; methods: string }> {
  const from = proxy.calls.length;
  for (let i = 0; i < WINDOW_POLLS; i++) {
    if (mine) await node.mine(1);
    await sleep(poll * 1000);
  }
  const calls = proxy.calls.slice(from);
  const byMethod = new Map<string, number>();
  for (const c of calls) byMethod.set(c.method, (byMethod.get(c.method) ?? 0) + 1);
  // Each poll asks for the final block once: that many polls ran (a poll takes its interval plus its own time).
  const polls = calls.filter((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'finalized').length;
  return { perPoll: polls === 0 ? calls.length / WINDOW_POLLS : Math.round((calls.length / polls) * 100) / 100, methods: [...byMethod].map(([k, v]) => `${k} ${v}`).join(', ') + ` over ${polls} polls` };
}

const idle = await perPoll(true);
let n = 0;
const open = async (count: number) => {
  for (let i = 0; i < count; i++) await p.app.intents.create(merchant, { amount: 10 + (n++ % 500), currency: 'USDT_POLYGON', order_id: `bench-${n}` });
};
await open(1);
await sleep(poll * 3000); // the first start: chain id, decimals, the checkpoint
const one = await perPoll(true);
const started = Date.now();
await open(999);
const createdIn = Date.now() - started;
await perPoll(true); // settle in
const many = await perPoll(true);

// Finality → webhook: a payment, then the blocks that make its block final (finalized = newest − 2).
const latencies: number[] = [];
for (let i = 0; i < payments; i++) {
  const created = await p.app.intents.create(merchant, { amount: 600 + i, currency: 'USDT_POLYGON', order_id: `lat-${i}` });
  const due = BigInt(/uint256=(\d+)$/.exec(created.payment_uri!)![1]!);
  const before = receiver.received.length;
  await node.transfer(token, MERCHANT, due);
  await node.mine(2);
  const finalAt = Date.now();
  await receiver.waitFor(before + 1, 60_000);
  latencies.push(receiver.received[before]!.at - finalAt);
  await sleep(poll * 1000);
}
latencies.sort((a, b) => a - b);

const perHour = (perPollCount: number, seconds: number) => Math.round((perPollCount * 3600) / seconds);
console.log(`poll ${poll} s; ${WINDOW_POLLS} polls per window, one new block per poll`);
console.log(`idle (no open intent): ${idle.perPoll} requests/poll (${idle.methods || 'none'})`);
console.log(`1 open intent: ${one.perPoll} requests/poll (${one.methods})`);
console.log(`1,000 open intents: ${many.perPoll} requests/poll (${many.methods}); 999 created in ${createdIn} ms`);
for (const chain of EVM_CHAINS) {
  const seconds = Math.max(5, chain.blockSeconds);
  console.log(`${chain.network}: default poll ${seconds} s → idle ${perHour(idle.perPoll, seconds)}/h, 1 intent ${perHour(one.perPoll, seconds)}/h, 1,000 intents ${perHour(many.perPoll, seconds)}/h`);
}
console.log(`final → webhook, ${payments} payments: median ${latencies[Math.floor(latencies.length / 2)]} ms, max ${latencies.at(-1)} ms (poll ${poll} s)`);
await p.close();
await receiver.close();
await proxy.close();
await node.stop();
